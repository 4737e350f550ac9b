#!/bin/bash
NCCL_DEBUG=WARN
NCCL_IB_HCA==mlx5_0,mlx5_1
export NCCL_IB_HCA
torchrun train.py
