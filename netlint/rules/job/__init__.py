"""JOB4xx: training-job internal consistency (Megatron-LM validate_args, DeepSpeed config checks)."""

# What the family's rules read (Rule.needs, netlint/registry.py): a training job or its parts (DeepSpeed config, hostfile).
NEEDS = (("jobs",),)
