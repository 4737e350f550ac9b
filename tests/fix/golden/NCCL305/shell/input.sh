#!/bin/bash
export NCCL_SOCKET_IFNAME="eth0, eth1"
torchrun train.py
