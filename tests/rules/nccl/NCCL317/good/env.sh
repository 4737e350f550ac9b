export NCCL_SOCKET_IFNAME=^lo,docker
