export NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3
