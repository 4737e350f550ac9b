#!/bin/bash
export NCCL_DEBUG=WARN
export NCCL_IB_HCA=mlx5
srun python train.py
