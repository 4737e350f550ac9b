"""NCCL3xx: the NCCL environment (unknown or misspelled variables, bad values, deprecated names,
risky settings). Sources: ../shared/research/nccl.md and nccl-env.tsv."""
