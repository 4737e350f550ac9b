# Azure ND H100 v5 (hopper.conf): neither of the first two fails init in the NCCL source
export NCCL_IB_PCI_RELAXED_ORDERING=1
export NCCL_COLLNET_ENABLE=1
export NCCL_MNNVL_ENABLE=2
