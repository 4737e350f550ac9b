"""XC6xx: cross-file agreement between the NCCL environment, the switch QoS and the inventory."""
