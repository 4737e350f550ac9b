"""NCCL3xx: the NCCL environment (unknown or misspelled variables, bad values, deprecated names,
risky settings). Sources: NVIDIA/nccl's source (2.30.7, 5067397c), the NCCL User Guide and the
registry built from them, ``netlint/data/nccl-env.tsv``."""

# What the family's rules read (Rule.needs, netlint/registry.py): an NCCL environment.
NEEDS = (("nccl_envs",),)
