"""DeepSpeed config keys (microsoft/DeepSpeed@38327e07): deepspeed/runtime/constants.py; zero/config.py
(``DeepSpeedZeroConfig``, ``extra="forbid"``, both field names and ``stage3_`` aliases accepted);
zero/offload_config.py; docs/_pages/config-json.md."""

TOP = {
    "train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps", "optimizer",
    "scheduler", "fp16", "bf16", "bfloat16", "amp", "torch_autocast", "gradient_clipping",
    "prescale_gradients", "gradient_predivide_factor", "sparse_gradients", "zero_optimization",
    "zero_allow_untested_optimizer", "zero_force_ds_cpu_optimizer", "steps_per_print", "wall_clock_breakdown",
    "dump_state", "memory_breakdown", "activation_checkpointing", "flops_profiler", "comms_logger", "tensorboard",
    "wandb", "csv_monitor", "comet", "monitor_config", "aio", "autotuning", "elasticity", "pipeline",
    "communication_data_type", "seq_parallel_comm_data_type", "data_types", "sparse_attention",
    "data_efficiency", "curriculum_learning", "compression_training", "checkpoint", "tensor_parallel",
    "disable_allgather", "load_universal_checkpoint", "use_node_local_storage", "nebula", "eigenvalue",
    "progressive_layer_drop", "quantize_training", "weight_quantization", "hybrid_engine", "compile",
    "timers", "graph_harvesting", "use_data_before_expert_parallelism", "dataloader_drop_last",
    "zero_optimization_stage", "mics_shard_size", "mics_hierarchical_params_gather", "fp16_master_weights_and_grads",
    "fp16_auto_cast", "train_batch_size_per_gpu", "gradient_accumulation_dtype", "sequence_parallel_size",
    "expert_parallel", "moe", "wall_clock_breakdown_verbose", "deepcompile", "zenflow", "activation_checkpoint",
}
ZERO = {
    "stage", "contiguous_gradients", "reduce_scatter", "reduce_bucket_size", "use_multi_rank_bucket_allreduce",
    "allgather_partitions", "allgather_bucket_size", "overlap_comm", "load_from_fp32_weights",
    "elastic_checkpoint", "offload_param", "offload_optimizer", "sub_group_size", "cpu_offload_param",
    "cpu_offload_use_pin_memory", "cpu_offload", "prefetch_bucket_size", "stage3_prefetch_bucket_size",
    "param_persistence_threshold", "stage3_param_persistence_threshold", "model_persistence_threshold",
    "stage3_model_persistence_threshold", "max_live_parameters", "stage3_max_live_parameters",
    "max_reuse_distance", "stage3_max_reuse_distance", "gather_16bit_weights_on_model_save",
    "stage3_gather_16bit_weights_on_model_save", "stage3_gather_fp16_weights_on_model_save",
    "module_granularity_threshold", "stage3_module_granularity_threshold", "use_all_reduce_for_fetch_params",
    "stage3_use_all_reduce_for_fetch_params", "ignore_unused_parameters", "legacy_stage1", "round_robin_gradients",
    "zero_hpz_partition_size", "zero_quantized_weights", "zero_quantized_nontrainable_weights",
    "zero_quantized_gradients", "zeropp_loco_param", "mics_shard_size", "mics_hierarchical_params_gather",
    "memory_efficient_linear", "pipeline_loading_checkpoint", "override_module_apply", "log_trace_cache_warnings",
    "save_muon_momentum_buffer_in_memory", "enable_sanity_checks",
}
OFFLOAD_PARAM = {"device", "nvme_path", "buffer_count", "buffer_size", "max_in_cpu", "pin_memory"}
OFFLOAD_OPTIMIZER = {"device", "nvme_path", "buffer_count", "pin_memory", "pipeline", "pipeline_read",
                     "pipeline_write", "fast_init", "ratio", "super_offload", "cpuadam_cores_perc"}
# DeepSpeed bf16 section (runtime/config.py get_bfloat16_config): other keys are ignored.
BF16 = {"enabled", "immediate_grad_update", "check_grad_overflow", "auto_cast", "bf16_master_weights_and_grads",
        "bf16_optimizer_states"}
FP16 = {"enabled", "auto_cast", "loss_scale", "initial_scale_power", "loss_scale_window", "hysteresis",
        "consecutive_hysteresis", "min_loss_scale", "fp16_master_weights_and_grads", "type"}
# zero/config.py L174-270: deprecated → replacement (warning "Config parameter … is deprecated use … instead").
DEPRECATED_ZERO = {
    "cpu_offload": ("offload_optimizer", "replace with \"offload_optimizer\": {\"device\": \"cpu\"}"),
    "cpu_offload_param": ("offload_param", "replace with \"offload_param\": {\"device\": \"cpu\"}"),
    "cpu_offload_use_pin_memory": ("offload_param.pin_memory / offload_optimizer.pin_memory", ""),
    "stage3_gather_fp16_weights_on_model_save": ("stage3_gather_16bit_weights_on_model_save", "rename"),
}
# HF Trainer / Accelerate fill these (transformers integrations/deepspeed.py HfTrainerDeepSpeedConfig).
COMM_DTYPES = ("fp16", "bf16", "fp32")
