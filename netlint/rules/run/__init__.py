"""RUN7xx: what a run printed (NCCL debug logs, nccl-tests results) against the repo's intent."""
