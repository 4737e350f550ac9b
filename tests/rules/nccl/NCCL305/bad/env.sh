export NCCL_SOCKET_IFNAME="eth0, eth1"
export NCCL_OOB_NET_IFNAME==^docker0
export NCCL_IB_HCA=mlx5_0:1,^mlx5_1
export NCCL_SOCKET_IFNAME=
