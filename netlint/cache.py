"""The cache of unchanged files: ``.netlint_cache/`` at the project root (ruff's convention).

Two kinds of entries, written to a temporary name and moved into place (a reader never sees half of
one; two runs writing at once leave one whole):

* **one per file**, keyed by a blake2b digest of the file's bytes, its path in the project, netlint's
  version and build (:func:`netlint.build_id.build_id`), Python's version and the effective configuration (:func:`salt`): the file's
  :class:`~netlint.packing.Packed` — loader findings, what it was read as, the models rules read — and
  the paths its loaders looked at beside it (netlint/load_many.py). All in one pack,
  ``v1/files.pack``. A run whose files changed loads only those; the join and the rules across files
  (workspace, XC, FAB, NCCL scope) run again on every file's models.
* **one per run** (``v1/runs/KEY``), keyed by every file's key in the order read (the inventory's
  among them: its digest is in the run key) and the policy files: every finding before filtering, the
  files' metadata, what the report shows of the models (``nccl_settings``). An unchanged repository is
  then a walk, a read and a hash per file, and one entry.

Loaders never see the inventory (loading is per file), so an edited inventory re-runs the join and the
rules, not the loaders. Entries with an internal error (NL000) are never written. An entry that does
not unpickle, comes from another netlint or Python, or names another key is ignored. The folder holds
a ``CACHEDIR.TAG`` (backup tools skip it) and a ``.gitignore`` of ``*``. The pack keeps this run's
entries first, then older ones, up to :data:`MAX_BYTES`; :data:`MAX_RUNS` run entries are kept.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import struct
import sys
import tempfile
from pathlib import Path
from typing import Any

DEFAULT_DIR = ".netlint_cache"
SCHEMA = 1
MAX_BYTES = 512 << 20  # the file pack: ~25,000 files of the mixed benchmark (20 KB each)
MAX_RUNS = 16  # run entries kept (several checkouts, pre-commit subsets)
GITIGNORE = "# Automatically created by netlint.\n*\n"
RACY_NS = 2_000_000_000  # file times this close to the stat index's are not trusted (FAT: 2 s)
_MAGIC = b"netlint-cache"
CACHEDIR_TAG = ("Signature: 8a477f597d28d172789f06886806bc55\n"
                "# This file is a cache directory tag created by netlint.\n"
                "# For information about cache directory tags see https://bford.info/cachedir/\n")


class Cache:
    def __init__(self, folder: Path, salt: bytes):
        self.folder = folder
        self.salt = salt
        from netlint import __version__
        from netlint.build_id import build_id

        self.header = (_MAGIC, SCHEMA, __version__, build_id(), sys.version_info[:2], salt)
        self.base = folder / f"v{SCHEMA}"
        self.wrote = 0
        self.hits = 0
        self._data: dict[str, bytes | None] = {}  # bytes read for the run key, used once by loading
        self._pack: dict[str, tuple[int, int]] | None = None  # file entries: key -> (offset, length)
        self._map: Any = None  # files.pack, open
        self._used: set[str] = set()
        self._out: Any = None  # the next pack, written as entries come
        self._out_path = ""
        self._failed = False
        self._written: set[str] = set()
        self._total = 0
        self._index: tuple[dict[str, tuple], int] | None = None
        self._index_changed = False
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
    # The file entries live in one pack, ``files.pack``: a length-prefixed pickled header, then records of
    # (key length, entry length, key, pickled entry). Only the record heads are read at first; an entry
    # is read and unpickled when asked for (an edit run of 10,000 files held 200 MB of entries else). A
    # run that adds entries streams them to the next pack as they come, copies the older ones it keeps,
    # and moves it into place at the end: one file written instead of one per input (creating 2,000
    # small files cost more than linting them).
    def _entries(self) -> dict[str, tuple[int, int]]:
        if self._pack is None:
            self._pack = {}
            try:
                fh = self._map = open(self.base / "files.pack", "rb")
                size = os.fstat(fh.fileno()).st_size
            except OSError:  # absent
                return self._pack
            try:
                (n,) = _U32.unpack(fh.read(4))
                if n > size or pickle.loads(fh.read(n)) != self.header:
                    return self._pack
                at = 4 + n
                while at + _REC.size <= size:
                    klen, blen = _REC.unpack(fh.read(_REC.size))
                    key = fh.read(klen).decode("ascii")
                    start = at + _REC.size + klen
                    if start + blen > size:
                        break  # a record cut short (a run killed while writing): the rest is lost
                    self._pack[key] = (start, blen)
                    at = fh.seek(start + blen)
            except Exception:  # a damaged or foreign header: nothing is used
                self._pack = {}
        return self._pack

    def _blob(self, where: tuple[int, int]) -> bytes:
        self._map.seek(where[0])
        return self._map.read(where[1])

    def get_file(self, key: str) -> Any:
        where = self._entries().get(key)
        if where is None:
            return None
        try:
            value = pickle.loads(self._blob(where))
        except Exception:  # a damaged record, a class that changed shape under the same version
            return None
        self._used.add(key)
        self.hits += 1
        return value

    def put_file(self, key: str, value: Any) -> None:
        try:
            blob = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # a model that does not pickle: this file is loaded again next time
            return
        self._add(key, blob)

    def _add(self, key: str, blob: bytes) -> None:
        out = self._next_pack()
        if out is None or key in self._written or self._total + len(blob) > MAX_BYTES:
            return
        raw = key.encode("ascii")
        try:
            out.write(_REC.pack(len(raw), len(blob)))
            out.write(raw)
            out.write(blob)
        except OSError:  # a full disk: the pack is dropped at the end
            self._failed = True
            return
        self._written.add(key)
        self._total += len(blob)

    def _next_pack(self):
        if self._out is None and not self._failed:
            try:
                self._prepare()
                self.base.mkdir(parents=True, exist_ok=True)
                fd, self._out_path = tempfile.mkstemp(dir=self.base, prefix=".tmp-")
                self._out = os.fdopen(fd, "wb")
                header = pickle.dumps(self.header, protocol=pickle.HIGHEST_PROTOCOL)
                self._out.write(_U32.pack(len(header)) + header)
            except Exception:  # a read-only checkout: the run goes on uncached
                self._failed = True
                self._out = None
        return self._out

    def _save_pack(self) -> None:
        """After this run's entries, the older ones it used, then others, while under :data:`MAX_BYTES`."""
        out = self._out
        if out is None:
            return
        try:
            old = self._entries()
            for key in [k for k in old if k in self._used] + [k for k in old if k not in self._used]:
                if key not in self._written and self._total + old[key][1] <= MAX_BYTES:
                    self._add(key, self._blob(old[key]))
            out.close()
            self._close_map()  # Windows cannot replace a file still open
            if self._failed:
                raise OSError("pack not written whole")
            os.replace(self._out_path, self.base / "files.pack")
            self.wrote += self._total
        except Exception:
            out.close()
            _unlink(self._out_path)
        finally:
            self._out = None

    def _close_map(self) -> None:
        if self._map is not None:
            self._map.close()
        self._map = None
        self._pack = None

    # -- the stat index -----------------------------------------------------------------------------
    # As git's index: a file whose size, times and inode are those it had when its key was computed has
    # that key still, without reading it. A file changed less than RACY_NS before the index was written
    # could have the same times with other bytes (coarse clocks): it is read again.
    def stat_of(self, cand: Any) -> tuple | None:
        try:
            st = os.stat(cand.abspath)
        except (OSError, ValueError):
            return None
        return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)

    def unchanged_key(self, cand: Any, sig: tuple | None) -> str | None:
        if sig is None:
            return None
        index, written = self._stat_index()
        got = index.get(cand.rel)
        if got is None or got[0] != str(cand.abspath) or got[1] != cand.explicit or got[2] != sig:
            return None
        if sig[1] >= written - RACY_NS or sig[2] >= written - RACY_NS:
            return None
        return got[3]

    def index_put(self, cand: Any, sig: tuple | None, key: str) -> None:
        if sig is None:
            return
        entry = (str(cand.abspath), cand.explicit, sig, key)
        index, written = self._stat_index()
        racy = sig[1] >= written - RACY_NS or sig[2] >= written - RACY_NS  # trusted once rewritten later
        if racy or index.get(cand.rel) != entry:
            index[cand.rel] = entry
            self._index_changed = True

    def _stat_index(self) -> tuple[dict[str, tuple], int]:
        if self._index is None:
            self._index = ({}, 0)
            try:
                with open(self.base / "stat.index", "rb") as fh:
                    header, written, index = pickle.load(fh)
                if header == self.header and isinstance(index, dict) and isinstance(written, int):
                    self._index = (index, written)
            except Exception:  # absent, damaged, foreign: every file is read
                pass
        return self._index

    def _save_index(self) -> None:
        if not self._index_changed or self._index is None:
            return
        import time

        index = self._index[0]
        for rel in [rel for rel, got in index.items() if not os.path.lexists(got[0])]:
            del index[rel]  # deleted or renamed: the index does not grow with them
        path = self.base / "stat.index"
        try:
            self._prepare()
            self.base.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.base, prefix=".tmp-")
            with os.fdopen(fd, "wb") as fh:
                # the time is taken before writing: a file changed after it is re-read next time
                pickle.dump((self.header, time.time_ns(), self._index[0]), fh,
                            protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        except Exception:
            pass

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

    def _write(self, path: Path, key: str, value: Any) -> None:
        try:
            blob = _dumps_located((self.header, key, value))
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
        for name, text in (("CACHEDIR.TAG", CACHEDIR_TAG), (".gitignore", GITIGNORE)):
            if not (self.folder / name).exists():
                (self.folder / name).write_text(text, encoding="utf-8")
        self._prepared = True

    def finish(self) -> None:
        """Write the new file entries; bound the run entries (a warm run writes nothing, scans nothing)."""
        self._save_pack()
        self._close_map()
        self._save_index()
        if not self.wrote:
            return
        try:
            prune(self.base, MAX_RUNS)
        except OSError:
            pass


def _dumps_located(value: Any) -> bytes:
    """A run entry's pickle with JSON spans as located Spans (its findings are printed: located
    already; one not yet located would take its document's text along, netlint.packing.reduce_json_doc)."""
    import io

    from netlint.located import JsonSpan, Span

    class _Pickler(pickle.Pickler):
        def reducer_override(self, obj):
            if type(obj) is JsonSpan:
                return (Span, obj.astuple())
            return NotImplemented

    out = io.BytesIO()
    _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return out.getvalue()


_U32 = struct.Struct(">I")
_REC = struct.Struct(">HI")  # key length, entry length


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
