#!/bin/bash
export NCCL_DEBUG=WARN
export UCX_TLS=rc
export UCX_NET_DEVICES=mlx5_0:1,eth0
