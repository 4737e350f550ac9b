#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=8
set -euo pipefail

export NCCL_IB_TIMEOUT=22        # long-haul links
export NCCL_DEBUG=WARN
srun python train.py
