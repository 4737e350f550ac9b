#!/bin/bash
export NCCL_DEBUG=WARN
export NCCL_SOCKET_IFNAME=ens1np0
torchrun train.py
