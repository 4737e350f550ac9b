#!/bin/bash
#SBATCH --nodes=2
export TORCH_NCCL_ASYNC_ERROR_HANDLING=1
srun python train.py
