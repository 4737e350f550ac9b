"""The cache of unchanged files: ``.netlint_cache/`` at the project root (ruff's convention).

Two kinds of entries, each a pickle in a file of its own, written to a temporary name and moved into
place (a reader never sees half an entry; two runs writing at once leave one whole entry):

* **one per file**, keyed by a blake2b digest of the file's bytes, its path in the project, netlint's
  version and the effective configuration (:func:`salt`): the file's :class:`~netlint.packing.Packed`
  — loader findings, what it was read as, the models rules read. A run whose files changed re-reads
  only those; rules that join files (workspace, XC, FAB, NCCL scope) run again on every file's models.
* **one per run**, keyed by every file's key in the order read (the inventory's among them: its digest
  is in the run key) and the policy files: every finding before filtering, the files' metadata, and
  what the report shows from the models (``nccl_settings``). An unchanged repository is then a walk, a
  read and a hash per file, and one entry.

Loaders never see the inventory (loading is per file), so an edited inventory re-runs the join and
the rules, not the loaders. Entries with an internal error (NL000) are never written. An entry that
does not unpickle, comes from another netlint or Python, or names another key is ignored. The folder
holds a ``CACHEDIR.TAG`` (backup tools skip it) and a ``.gitignore`` of ``*``; past
:data:`MAX_BYTES`, the least recently written entries are removed.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import sys
import tempfile
from pathlib import Path
from typing import Any

DEFAULT_DIR = ".netlint_cache"
SCHEMA = 1
MAX_BYTES = 512 << 20  # the file pack: ~25,000 files of the mixed benchmark (20 KB each)
MAX_RUNS = 16  # run entries kept (several checkouts, pre-commit subsets)
_MAGIC = b"netlint-cache"
CACHEDIR_TAG = ("Signature: 8a477f597d28d172789f06886806bc55\n"
                "# This file is a cache directory tag created by netlint.\n"
                "# For information about cache directory tags see https://bford.info/cachedir/\n")


class Cache:
    def __init__(self, folder: Path, salt: bytes):
        self.folder = folder
        self.salt = salt
        from netlint import __version__

        self.header = (_MAGIC, SCHEMA, __version__, sys.version_info[:2], salt)
        self.base = folder / f"v{SCHEMA}"
        self.wrote = 0
        self.hits = 0
        self._data: dict[str, bytes | None] = {}  # bytes read for the run key, used once by loading
        self._pack: dict[str, bytes] | None = None  # file entries: key -> pickled entry
        self._new: dict[str, bytes] = {}
        self._used: set[str] = set()
        # What loading found out, per file, for the run entry (netlint/cached_run.py): its key, path,
        # and the paths its loaders looked at (None: unknown, the file was not packed).
        self.keys: dict[str, str | None] = {}
        self.paths: dict[str, str] = {}
        self.explicit: dict[str, bool] = {}
        self.deps: dict[str, Any] = {}
        self.config: Any = None
        self.config_root: Path | None = None

    def note(self, cand: Any, key: str | None, deps: Any) -> None:
        self.keys[cand.rel] = key
        self.paths[cand.rel] = str(cand.abspath)
        self.explicit[cand.rel] = cand.explicit
        self.deps[cand.rel] = deps

    def data_of(self, cand: Any) -> bytes | None:
        """The bytes of a candidate (read once per run: for the run key, then for loading)."""
        if cand.rel in self._data:
            return self._data.pop(cand.rel)
        from netlint.load_many import read

        return read(cand)

    def remember(self, cand: Any) -> bytes | None:
        data = self._data[cand.rel] = self.data_of(cand)
        return data

    # -- keys ---------------------------------------------------------------------------------------
    def file_key(self, rel: str, explicit: bool, data: bytes) -> str:
        h = hashlib.blake2b(self.salt, digest_size=20)
        h.update(rel.encode("utf-8", "surrogateescape") + (b"\0E\0" if explicit else b"\0W\0"))
        h.update(data)
        return h.hexdigest()

    def run_key(self, parts: list[str]) -> str:
        h = hashlib.blake2b(self.salt + b"run", digest_size=20)
        for part in parts:
            h.update(part.encode("utf-8", "surrogateescape") + b"\0")
        return h.hexdigest()

    # -- entries ------------------------------------------------------------------------------------
    # The file entries live in one pack (``files.pack``: key -> pickled entry), read whole the first time
    # one is asked for and written once at the end of a run that added some: one write instead of one
    # file per input (creating 2,000 small files cost more than linting them).
    def _entries(self) -> dict[str, bytes]:
        if self._pack is None:
            self._pack = {}
            try:
                with open(self.base / "files.pack", "rb") as fh:
                    header, entries = pickle.load(fh)
                if header == self.header and isinstance(entries, dict):
                    self._pack = entries
            except Exception:  # absent, truncated, foreign: start empty
                pass
        return self._pack

    def get_file(self, key: str) -> Any:
        blob = self._entries().get(key)
        if blob is None:
            return None
        try:
            value = pickle.loads(blob)
        except Exception:  # a class that changed shape under the same version
            return None
        self._used.add(key)
        self.hits += 1
        return value

    def put_file(self, key: str, value: Any) -> None:
        try:
            self._new[key] = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # a model that does not pickle: this file is loaded again next time
            pass

    def _save_pack(self) -> None:
        """This run's entries first, then older ones while the pack stays under :data:`MAX_BYTES`."""
        if not self._new:
            return
        old = self._entries()
        out = dict(self._new)
        total = sum(map(len, out.values()))
        for key in [k for k in old if k in self._used] + [k for k in old if k not in self._used]:
            if key in out:
                continue
            blob = old[key]
            if total + len(blob) > MAX_BYTES:
                continue
            out[key] = blob
            total += len(blob)
        self._write(self.base / "files.pack", None, out, raw=True)

    def get_run(self, key: str) -> Any:
        return self._read(self.base / "runs" / key, key)

    def put_run(self, key: str, value: Any) -> None:
        self._write(self.base / "runs" / key, key, value)

    def _read(self, path: Path, key: str) -> Any:
        try:
            with open(path, "rb") as fh:
                header, got_key, value = pickle.load(fh)
        except Exception:  # absent, truncated, foreign, from a netlint whose classes differ
            return None
        if header != self.header or got_key != key:
            return None
        self.hits += 1
        return value

    def _write(self, path: Path, key: str | None, value: Any, raw: bool = False) -> None:
        try:
            blob = pickle.dumps((self.header, value) if raw else (self.header, key, value),
                                protocol=pickle.HIGHEST_PROTOCOL)
            self._prepare()
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(blob)
                os.replace(tmp, path)
            except BaseException:
                _unlink(tmp)
                raise
            self.wrote += len(blob)
        except Exception:  # a read-only checkout, a full disk: the run goes on uncached
            pass

    def _prepare(self) -> None:
        """CACHEDIR.TAG and .gitignore, once, before the first entry."""
        if getattr(self, "_prepared", False):
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        for name, text in (("CACHEDIR.TAG", CACHEDIR_TAG), (".gitignore", "# Automatically created by netlint.\n*\n")):
            if not (self.folder / name).exists():
                (self.folder / name).write_text(text, encoding="utf-8")
        self._prepared = True

    def finish(self) -> None:
        """Write the new file entries; bound the run entries (a warm run writes nothing, scans nothing)."""
        self._save_pack()
        if not self.wrote:
            return
        try:
            prune(self.base, MAX_RUNS)
        except OSError:
            pass


def prune(base: Path, max_runs: int) -> None:
    """Remove other schema versions' folders (nothing reads them), temporary files a killed run left,
    and the oldest run entries past ``max_runs`` (the file pack bounds itself when written)."""
    import shutil

    for other in base.parent.glob("v*"):
        if other != base and other.is_dir():
            shutil.rmtree(other, ignore_errors=True)
    runs = []
    for folder in (base, base / "runs"):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            path = os.path.join(folder, name)
            try:
                st = os.stat(path)
            except OSError:
                continue
            if name.startswith(".tmp-"):
                if st.st_mtime < _now() - 3600:  # left by a killed run
                    _unlink(path)
            elif folder.name == "runs":
                runs.append((st.st_mtime, path))
    for _, path in sorted(runs)[:-max_runs] if len(runs) > max_runs else []:
        _unlink(path)


def _now() -> float:
    import time

    return time.time()


def _unlink(path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def salt(config: Any) -> bytes:
    """The effective configuration as bytes: settings (limits included), root and configuration file."""
    settings = config.settings
    dumped = settings.model_dump() if hasattr(settings, "model_dump") else _plain(settings)
    doc = {"settings": _plain(dumped), "root": str(config.root),
           "file": str(config.file) if config.file is not None else None}
    return hashlib.blake2b(json.dumps(doc, sort_keys=True, default=repr).encode(), digest_size=20).digest()


def _plain(value: Any) -> Any:
    from dataclasses import asdict, is_dataclass

    if is_dataclass(value) and not isinstance(value, type):
        return _plain(asdict(value))
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted(repr(v) for v in value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "model_dump"):
        return _plain(value.model_dump())
    return value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)


def open_cache(config: Any, cache_dir: Path | None) -> Cache | None:
    """The cache for this run's configuration (``cache_dir``: ``--cache-dir``, else the configuration's
    ``cache-dir``, else ``.netlint_cache`` at the project root)."""
    folder = cache_dir
    if folder is None:
        configured = getattr(config.settings, "cache_dir", None)
        folder = Path(configured) if configured else Path(DEFAULT_DIR)
        if not folder.is_absolute():
            folder = config.root / folder
    try:
        cache = Cache(Path(folder), salt(config))
    except Exception:  # a setting that does not serialise: run uncached rather than fail
        return None
    cache.config, cache.config_root = config, config.root
    return cache
