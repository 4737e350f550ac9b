"""Format adapters. Each module defines Loader subclasses; all are discovered automatically."""
