#!/bin/bash
export NCCL_DEBUG=WARN
if [ -n "$DEBUG" ]; then
  export NCCL_DEBUG=INFO
fi
NCCL_ALGO=Tree torchrun bench.py
export NCCL_ALGO=Ring
export NCCL_DEBUG=WARN
torchrun train.py
# a sweep: each value serves its own run
export NCCL_PROTO=Simple
all_reduce_perf -b 8 -e 8G
export NCCL_PROTO=LL128
all_reduce_perf -b 8 -e 8G
