"""ADV8xx: known-bad releases of NCCL, RCCL, aws-ofi-nccl, PyTorch and NGC images at the versions a repo pins."""
