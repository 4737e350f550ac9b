"""QOS1xx: switch QoS rules (PFC, ECN/WRED, DSCP/TC maps, buffers and headroom, PFC watchdog, MTU).

Each rule reads the normalized :class:`~netlint.models.switch.SwitchQos` (every vendor format looks
the same) and, for intent, the inventory's ``fabric.roce``. Shared facts live in ``netlint.qos``.
"""

# What the family's rules read (Rule.needs, netlint/registry.py): a switch (or a switch-side table).
NEEDS = (("switches",),)
