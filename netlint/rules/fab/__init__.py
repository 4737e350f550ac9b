"""FAB5xx: a training job placed on the cluster inventory (netlint.fabric)."""

# What the family's rules read (Rule.needs, netlint/registry.py): a training job.
NEEDS = (("jobs",),)
