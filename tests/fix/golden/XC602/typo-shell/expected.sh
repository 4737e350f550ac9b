#!/bin/bash
# rails 0-2 only for this smoke test
export NCCL_IB_HCA="=mlx5_0,mlx5_1,mlx5_2"
export NCCL_SOCKET_IFNAME=ens1np0
torchrun --nproc_per_node 8 train.py
