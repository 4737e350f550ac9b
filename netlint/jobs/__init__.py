"""Job recovery: Megatron argv parsing, launcher arithmetic, DeepSpeed/NeMo/gpt-neox/torchtitan
configs → :class:`netlint.models.job.TrainingJob`. Pure functions; the loaders in
``netlint/loaders/job_*.py`` call them."""
