"""NIC2xx: the host end of RoCE (ConnectX QoS and DCQCN), alone and joined with the switches, the
inventory and NCCL. Who owns which break of the RoCE path: :mod:`netlint.nic.roce`."""

# What the family's rules read (Rule.needs, netlint/registry.py): a NIC configuration.
NEEDS = (("nics",),)
