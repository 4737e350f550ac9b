"""XC6xx: cross-file agreement between the NCCL environment, the switch QoS and the inventory."""

# What the family's rules read (Rule.needs, netlint/registry.py): the inventory (every cross-file join starts from it).
NEEDS = (("inventory",),)
