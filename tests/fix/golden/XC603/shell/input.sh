export NCCL_IB_HCA=mlx5_0,mlx5_1
