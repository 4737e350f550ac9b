export NCCL_SOCKET_IFNAME=^lo,docker
export NCCL_SOCKET_IFNAME=^docker,lo
