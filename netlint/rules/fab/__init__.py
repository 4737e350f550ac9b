"""FAB5xx: a training job placed on the cluster inventory (netlint.fabric)."""
