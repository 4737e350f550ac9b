"""ADV8xx: known-bad releases of NCCL, RCCL, aws-ofi-nccl, PyTorch and NGC images at the versions a repo pins."""

# What the family's rules read (Rule.needs, netlint/registry.py): a release pinned by a file or by netlint's nccl-version.
NEEDS = (("pins", "nccl-version"),)
