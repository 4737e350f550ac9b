"""netlint: lint the network side of AI training clusters."""

__version__ = "0.1.0"
