export NCCL_SOCKET_IFNAME=^docker0
