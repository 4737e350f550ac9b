#!/bin/bash
export NCCL_DEBUG=WARN
if [ -n "$DEBUG" ]; then
  export NCCL_DEBUG=INFO
fi
NCCL_ALGO=Tree torchrun bench.py
export NCCL_ALGO=Ring
export NCCL_DEBUG=WARN
torchrun train.py
