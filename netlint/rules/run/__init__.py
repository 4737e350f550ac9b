"""RUN7xx: what a run printed (NCCL debug logs, nccl-tests results) against the repo's intent."""

# What the family's rules read (Rule.needs, netlint/registry.py): a run's output.
NEEDS = (("runs",),)
