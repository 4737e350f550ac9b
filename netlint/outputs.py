"""Files netlint writes (``-o``, ``--sarif-file``, ``--write-baseline``): checked before the run, so a
typo in a path is a one-line usage error (exit 2) instead of a traceback after a long run, and no
folder is ever created unasked (the user makes the folder; CI steps usually do)."""

from __future__ import annotations

import os
from pathlib import Path


class OutputError(Exception):
    """Why an output path cannot be written; the message is one line for stderr."""


def check_writable(flag: str, path: Path) -> None:
    """Raise :class:`OutputError` when ``path`` cannot be written: a missing or non-folder parent, a
    folder at the path, or no write permission. A FIFO or a device (``/dev/stdout``) is allowed."""
    parent = path.parent if str(path.parent) else Path(".")
    try:
        if os.path.isdir(path):
            raise OutputError(f"{flag} {path}: is a folder; give a file name")
        if not os.path.isdir(parent):
            why = "is not a folder" if os.path.lexists(parent) else "does not exist"
            raise OutputError(f"{flag} {path}: folder {parent} {why}; netlint does not create folders")
        if os.path.lexists(path):
            if not os.access(path, os.W_OK):
                raise OutputError(f"{flag} {path}: not writable (permission denied)")
        elif not os.access(parent, os.W_OK | os.X_OK):
            raise OutputError(f"{flag} {path}: folder {parent} is not writable (permission denied)")
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte
        raise OutputError(f"{flag} {path}: {getattr(exc, 'strerror', None) or exc}") from None


def write_text(flag: str, path: Path, text: str) -> None:
    """Write ``text`` to ``path``; an OS error (the disk filled, the folder went away) is an
    :class:`OutputError` with the reason, not a traceback."""
    try:
        path.write_text(text, encoding="utf-8")
    except (OSError, ValueError) as exc:
        raise OutputError(f"cannot write {flag} {path}: {getattr(exc, 'strerror', None) or exc}") from None
