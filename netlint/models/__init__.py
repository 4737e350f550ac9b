"""Normalized, located models: what loaders produce and rules read."""
