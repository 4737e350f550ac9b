#!/bin/bash
cat > ~/.nccl.conf <<'EOF'
NCCL_DEBUG=WARN
EOF
export NCCL_DEBUG=INFO
NCCL_ALGO=Tree mpirun -np 16 -x NCCL_ALGO=Ring ./all_reduce_perf -b 8
