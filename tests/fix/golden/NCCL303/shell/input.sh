#!/bin/bash
export NCCL_P2P_LEVEL=phb
export NCCL_DEBUG=debug
torchrun train.py
