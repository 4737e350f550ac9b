"""NCCL environment knowledge: the variable registry, value parsing, list syntax, env→job scope.

Everything here is pure and lazy: the registry TSV is parsed on first use, once per process.
Loaders (``netlint/loaders/nccl_*.py``) build :class:`netlint.models.nccl.NcclEnv` models; rules
(``netlint/rules/nccl``, ``netlint/rules/xc``) read them through these helpers.
"""
