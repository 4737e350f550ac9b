#!/bin/bash
export NCCL_DEBUG=WARN
torchrun train.py
