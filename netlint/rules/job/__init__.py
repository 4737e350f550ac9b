"""JOB4xx: training-job internal consistency (Megatron-LM validate_args, DeepSpeed config checks)."""
