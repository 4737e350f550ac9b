"""File plumbing for the fixer: atomic writes, unified diffs, and the in-memory overlay that lets the
lint → fix loop re-lint fixed text before anything is written."""

from __future__ import annotations

import difflib
import os
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

BOM = "\ufeff".encode("utf-8")


def encode(text: str, like: bytes) -> bytes:
    """``text`` as the bytes to write, keeping the original's UTF-8 byte-order mark if it had one."""
    data = text.encode("utf-8")
    return BOM + data if like.startswith(BOM) else data


def atomic_write(path: Path, data: bytes) -> None:
    """Write through a temporary file in the same directory and ``os.replace`` it over ``path``, so a
    reader sees the old file or the new one, never half of one. Keeps the file's permission bits
    (and owner, when allowed). A symlink is kept: its target is what gets replaced."""
    target = Path(os.path.realpath(path))
    st = os.stat(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".netlint-tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
        if hasattr(os, "chown"):
            try:
                os.chown(tmp, st.st_uid, st.st_gid)
            except OSError:
                pass
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def unified_diff(path: str, before: bytes, after: bytes) -> str:
    a = before.decode("utf-8", errors="replace").removeprefix("\ufeff").splitlines(keepends=True)
    b = after.decode("utf-8", errors="replace").removeprefix("\ufeff").splitlines(keepends=True)
    out = []
    for line in difflib.unified_diff(a, b, fromfile=f"a/{path}", tofile=f"b/{path}"):
        out.append(line)
        if not line.endswith("\n"):
            out.append("\n\\ No newline at end of file\n")
    return "".join(out)


def key(path: Path) -> str:
    return os.path.realpath(path)


@contextmanager
def overlay(files: dict[str, bytes]) -> Iterator[None]:
    """While active, :meth:`SourceFile.read` returns ``files[realpath]`` instead of the disk's bytes,
    so a re-lint sees the fixes made so far without them being written."""
    from netlint import source

    original = source.SourceFile.__dict__["read"]
    if not files:
        yield
        return

    def read(cls, path: str, abspath: Path):
        data = files.get(key(abspath))
        if data is not None:
            return cls(path, abspath, data)
        return original.__func__(cls, path, abspath)

    source.SourceFile.read = classmethod(read)
    try:
        yield
    finally:
        source.SourceFile.read = original
