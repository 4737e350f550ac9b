#!/bin/bash
# okoge-kaz/Megatron-LM all_reduce_bench.sh shape: install paths from the site's NCCL module, forwarded
export NCCL_HOME=/apps/nccl/2.20.5
export NCCL_INCLUDE_DIR=$NCCL_HOME/include
export NCCL_LIBRARY_DIR=$NCCL_HOME/lib
mpirun -np 16 -x NCCL_HOME -x NCCL_INCLUDE_DIR -x NCCL_LIBRARY_DIR -x NCCL_DEBUG=WARN ./all_reduce_perf -b 8 -e 1G
