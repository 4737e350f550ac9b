#!/bin/bash
export NCCL_P2P_LEVEL=PHB
export NCCL_DEBUG=INFO
torchrun train.py
