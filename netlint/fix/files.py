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


def atomic_write(target: Path, data: bytes) -> None:
    """Write through a temporary file in ``target``'s directory, fsync it, ``os.replace`` it over
    ``target`` and fsync the directory, so a reader (or a crash) sees the old file or the new one,
    never half of one. Keeps the permission bits (and owner, when allowed). ``target`` must be the
    real file (:mod:`netlint.fix.write` resolves links and refuses the ones it must not follow)."""
    st = os.stat(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".netlint-tmp", dir=target.parent)
    try:
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        if hasattr(os, "chown"):  # before chmod: a chown clears the setuid/setgid bits
            try:
                os.chown(tmp, st.st_uid, st.st_gid)
            except OSError:
                pass
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(target.parent)


def write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte is out (a short write is not an error, ENOSPC is)."""
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _fsync_dir(path: Path) -> None:
    """Make the rename durable; not every platform or file system lets a directory be opened."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


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
    """While active, reading a file of ``files`` (keyed by real path) gives the fixed bytes instead of
    the disk's: through :meth:`SourceFile.read` and through ``Path.read_bytes``/``read_text``, which
    loaders use for files a launch names (a ``--deepspeed_config``, a hostfile, a sourced script).
    A re-lint then sees every fix made so far, as the next run will, without anything written."""
    import io
    import pathlib

    from netlint import source

    if not files:
        yield
        return
    original = source.SourceFile.__dict__["read"]
    read_bytes, read_text = pathlib.Path.read_bytes, pathlib.Path.read_text

    def read(cls, path: str, abspath: Path):
        data = files.get(key(abspath))
        if data is not None:
            return cls(path, abspath, data)
        return original.__func__(cls, path, abspath)

    def path_bytes(self):
        data = files.get(key(self))
        return data if data is not None else read_bytes(self)

    def path_text(self, encoding=None, errors=None):
        data = files.get(key(self))
        if data is None:
            return read_text(self, encoding=encoding, errors=errors)
        # as open(..., "r") would: the same decoding and universal newlines
        with io.TextIOWrapper(io.BytesIO(data), encoding=encoding, errors=errors) as fh:
            return fh.read()

    source.SourceFile.read = classmethod(read)
    pathlib.Path.read_bytes, pathlib.Path.read_text = path_bytes, path_text
    try:
        yield
    finally:
        source.SourceFile.read = original
        pathlib.Path.read_bytes, pathlib.Path.read_text = read_bytes, read_text
