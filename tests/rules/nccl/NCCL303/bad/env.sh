#!/bin/bash
export NCCL_ALGO="Ring, Tree"
export NCCL_P2P_LEVEL=phb
export NCCL_DEBUG=debug
export NCCL_IB_RETRY_CNT=15
export NCCL_DEBUG_SUBSYS=INIT,FOO
export NCCL_SOCKET_FAMILY=ipv4
