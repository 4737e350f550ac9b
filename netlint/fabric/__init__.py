"""The fabric model: pure functions from a TrainingJob and the inventory to traffic per parallel
group, step time and bandwidth required versus available. Every formula cites
``shared/research/modeling.md`` with its section. See :mod:`netlint.fabric.formulas` (the maths),
:mod:`netlint.fabric.placement` (rank order → which groups leave the NVLink domain) and
:mod:`netlint.fabric.model` (:func:`analyze`, cached per workspace by :func:`job_models`)."""
