#!/bin/bash
#SBATCH --job-name=gpt-13b
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1
#SBATCH --gres=gpu:8

# 13B GPT on 4 H100 nodes of pod-a (see ../inventory.yaml).
export CUDA_DEVICE_MAX_CONNECTIONS=1

GPUS_PER_NODE=8
TP=16              # fault: the NVLink domain is 8 GPUs (FAB501)
PP=2

MODEL_PARALLEL_ARGS=(
    --tensor-model-parallel-size $TP
    --pipeline-model-parallel-size $PP
    --sequence-parallel
)
GPT_ARGS=(
    --num-layers 40 --hidden-size 5120 --num-attention-heads 40
    --seq-length 4096 --max-position-embeddings 4096
    --micro-batch-size 1 --global-batch-size 100
    --bf16 --use-distributed-optimiser --overlap-grad-reduce
)

srun torchrun --nproc_per_node $GPUS_PER_NODE --nnodes $SLURM_NNODES \
    pretrain_gpt.py ${GPT_ARGS[@]} ${MODEL_PARALLEL_ARGS[@]}
