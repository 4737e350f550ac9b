#!/bin/bash
export NCCL_DEBUG=INFO   # left on from the bring-up
export NCCL_SOCKET_IFNAME=ens1np0
torchrun --nproc-per-node 8 train.py
