#!/bin/bash
export NCCL_DEBUG=WARN
export NCCL_IB_HCA=mlx5
export NCCL_IB_GID_INDEX=3
srun python train.py
