"""The warm context of the language server: open buffers, cached file reads, dependencies.

A lint of one open file is an ordinary partial run (``netlint check FILE``: context.py loads the
inventory, the switches it names, the env files above a job) with two differences:

* every file is read through :meth:`Store.load`, which keeps each :class:`FileResult` and reuses it
  while the files it read are unchanged, so only the edited buffer is parsed again;
* open buffers replace the disk's bytes (the fixer's overlay, netlint/fix/files.py), also for files
  a loader reads by name (a ``--deepspeed_config``, a sourced script).

Which files each open document's lint read is kept: when one of them changes (an edit, a save, a
file watcher's event) the documents that read it are linted again.
"""

from __future__ import annotations

import dataclasses
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from netlint.discovery import Candidate
from netlint.findings import Finding
from netlint.loading import FileResult

CONFIG_NAMES = ("netlint.yaml", ".netlint.yaml", "netlint.yml", ".netlint.yml", "pyproject.toml")


@dataclass
class _Entry:
    stamps: dict[str, object]  # real path -> what it was when read (see Store.stamp)
    result: FileResult


@dataclass
class Linted:
    """One open file's lint: its findings, the run's report (fixes, texts), what it read."""

    path: str            # real path
    rel: str             # display path (Finding.file)
    findings: list[Finding]
    report: object       # netlint.engine.Report
    reads: set[str]      # real paths of every file the run read
    errors: list[Finding]  # configuration errors (NL008): the run stopped


class Store:
    def __init__(self) -> None:
        self.buffers: dict[str, str] = {}      # real path -> text of an open document
        self._bytes: dict[str, bytes] = {}
        self._generation: dict[str, int] = {}  # real path -> edits seen (a buffer's stamp)
        self._cache: dict[tuple, _Entry] = {}
        self.reads: dict[str, set[str]] = {}   # open document -> real paths its last lint read
        self._reading: set[str] | None = None
        self.loaded = 0                        # files parsed (cache misses), for tests and logs

    # --- buffers -------------------------------------------------------------------------------
    def put(self, path: str, text: str) -> None:
        self.buffers[path] = text
        self._bytes[path] = text.encode("utf-8", "surrogatepass")
        self._generation[path] = self._generation.get(path, 0) + 1

    def close(self, path: str) -> None:
        self.buffers.pop(path, None)
        self._bytes.pop(path, None)
        self.reads.pop(path, None)
        self._generation[path] = self._generation.get(path, 0) + 1

    def stamp(self, path: str) -> object:
        """What identifies the content a read would get now: the buffer's edit count, or the
        disk's size and modification time (None when missing)."""
        if path in self.buffers:
            return ("buffer", self._generation[path])
        try:
            st = os.stat(path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def dependents(self, changed: str) -> list[str]:
        """Open documents whose last lint read ``changed`` (itself excluded); every open document
        when ``changed`` is a netlint configuration (it decides what is checked and how)."""
        if Path(changed).name in CONFIG_NAMES:
            return [p for p in self.buffers if p != changed]
        return [p for p, reads in self.reads.items() if changed in reads and p != changed and p in self.buffers]

    # --- linting -------------------------------------------------------------------------------
    def lint(self, path: str) -> Linted:
        from netlint.discovery import display_path
        from netlint.engine import Options, lint
        from netlint.fix.files import overlay

        reads: set[str] = set()
        self._reading = reads
        # Treated like a walked file (pre-commit's --force-exclude): an editor opens many files
        # netlint does not read, and the configuration's excludes apply to it.
        opts = Options(paths=[Path(path)], load=self.load, force_exclude=True)
        try:
            with overlay(dict(self._bytes)):
                report = lint(opts)
        finally:
            self._reading = None
        rel = display_path(Path(path), report.config.root)
        if report.config.file is not None:
            reads.add(os.path.realpath(report.config.file))
        self.reads[path] = reads
        mine = [f for f in report.findings if f.file == rel]
        return Linted(path, rel, mine, report, reads, list(report.config_errors))

    def load(self, cand: Candidate) -> FileResult:
        """The file's result from the cache when nothing it read has changed, else read now."""
        from netlint.fix.files import key

        ident = (cand.abspath, cand.rel, cand.explicit, cand.refused)
        entry = self._cache.get(ident)
        if entry is None or any(self.stamp(p) != s for p, s in entry.stamps.items()):
            entry = self._read(cand, key(cand.abspath))
            self._cache[ident] = entry
        if self._reading is not None:
            self._reading.update(entry.stamps)
        res = entry.result
        # Copies: the run sets severities and suppressions on findings; the cached ones stay as read.
        return dataclasses.replace(res, models=list(res.models),
                                   findings=[dataclasses.replace(f) for f in res.findings])

    def _read(self, cand: Candidate, real: str) -> _Entry:
        from netlint.loading import load_file

        with _recording() as read:
            result = load_file(cand)
        read.add(real)
        self.loaded += 1
        return _Entry({p: self.stamp(p) for p in read}, result)


@contextmanager
def _recording() -> Iterator[set[str]]:
    """Collect the real paths of files read while active (a loader may read files a launch names),
    so a cached result is dropped when any of them changes."""
    import pathlib

    from netlint import source
    from netlint.fix.files import key

    seen: set[str] = set()
    read_cls = source.SourceFile.__dict__["read"]
    read_bytes, read_text = pathlib.Path.read_bytes, pathlib.Path.read_text

    def read(cls, path, abspath):
        seen.add(key(abspath))
        return read_cls.__func__(cls, path, abspath)

    def path_bytes(self):
        seen.add(key(self))
        return read_bytes(self)

    def path_text(self, *args, **kwargs):
        seen.add(key(self))
        return read_text(self, *args, **kwargs)

    source.SourceFile.read = classmethod(read)
    pathlib.Path.read_bytes, pathlib.Path.read_text = path_bytes, path_text
    try:
        yield seen
    finally:
        source.SourceFile.read = read_cls
        pathlib.Path.read_bytes, pathlib.Path.read_text = read_bytes, read_text
