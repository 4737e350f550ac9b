"""The fabric model: from a training job and the cluster inventory to the step in time.

- :mod:`netlint.fabric.shape` — the model's shape, parameters (total, activated) and FLOPs per token;
- :mod:`netlint.fabric.traffic` — bytes each GPU sends per step, per parallel dimension and framework;
- :mod:`netlint.fabric.collectives` — NCCL's α–β time of one collective (ring, tree, NVLS);
- :mod:`netlint.fabric.placement` — which ranks a group holds, and what leaves the node;
- :mod:`netlint.fabric.step` — :func:`~netlint.fabric.step.evaluate`: compute, bubble and exposed
  communication for (shape, split, framework settings, hardware) — pure, for a layout advisor;
- :mod:`netlint.fabric.settings` — a job and an inventory as those inputs;
- :mod:`netlint.fabric.model` — :func:`~netlint.fabric.model.analyze` per job, cached per workspace;
- :mod:`netlint.fabric.memory` — memory per GPU of a layout: weights, gradients, optimizer state, activations;
- :mod:`netlint.fabric.advisor` — the layouts a job's model and cluster allow, ranked by modelled step;
- :mod:`netlint.fabric.formulas` — the papers' closed forms (Narayanan 2021, Korthikanti 2022, ZeRO).

Each module cites the framework source (``repo@commit path Lnn``) or paper its formulas follow.
"""
