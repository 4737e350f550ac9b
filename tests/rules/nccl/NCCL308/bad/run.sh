#!/bin/bash
source ./common.env
export NCCL_DEBUG=WARN
export NCCL_DEBUG=INFO
export NCCL_IB_TC=41
torchrun train.py
