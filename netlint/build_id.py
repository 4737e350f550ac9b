"""Which build of netlint is running: what the cache keys its entries on beside the version."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def build_id() -> str:
    """Which netlint wrote an entry: its version alone misses an edited checkout or an editable
    install between releases (an entry pickled by other code unpickles into objects that lack the
    fields today's rules read). A digest of the name, size and time of every source and data file of
    the package (its built-in packs, recommended values and schemas among them): one stat each."""
    global _BUILD_ID
    if _BUILD_ID is None:
        _BUILD_ID = tree_digest(Path(__file__).resolve().parent)
    return _BUILD_ID


def tree_digest(top: Path) -> str:
    """A digest of the path, size and modification time of every .py, .yaml and .json below ``top``."""
    h = hashlib.blake2b(digest_size=16)
    stack = [str(top)]
    while stack:
        folder = stack.pop()
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
        for e in entries:
            if e.is_dir(follow_symlinks=False):
                if e.name != "__pycache__":
                    stack.append(e.path)
            elif e.name.endswith((".py", ".yaml", ".json")):
                st = e.stat()
                h.update(f"{e.path}\0{st.st_size}\0{st.st_mtime_ns}\0".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


_BUILD_ID: str | None = None
