#!/bin/bash
NCCL_DEBUG=WARN
export NCCL_DEBUG
NCCL_SOCKET_IFNAME=ens1np0
docker run -e NCCL_SOCKET_IFNAME=$NCCL_SOCKET_IFNAME image torchrun train.py
