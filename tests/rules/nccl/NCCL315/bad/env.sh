export NCCL_ALGO=Ring
export NCCL_PROTO=^LL128
