#!/bin/bash
# 2 nodes x 8 GPUs, TP 2 -> DP 8
torchrun --nnodes 2 --nproc_per_node 8 pretrain_gpt.py \
  --tensor-model-parallel-size 2 --pipeline-model-parallel-size 1 \
  --num-layers 24 --hidden-size 2048 --num-attention-heads 16 \
  --seq-length 2048 --max-position-embeddings 2048 \
  --micro-batch-size 2 --bf16 \
  --deepspeed --deepspeed_config input.json
