export NCCL_IB_HCA=mlx5
