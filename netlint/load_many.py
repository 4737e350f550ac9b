"""Loading many files: through the cache (netlint/cache.py), in a pool of workers (``--jobs``), or both.

Every file is read here first: its bytes give the cache key and, for a file loaded by a worker, the
:class:`~netlint.source.SourceFile` the run keeps — a worker sends back only a
:class:`~netlint.packing.Packed` (findings, metadata, models without the file's text), and that same
pickle is what the cache stores. A file is loaded again when it changed or when one of the files its
loading looked at did (:data:`netlint.safe_read.touched`: a sourced script, a ``--deepspeed_config``).
Results come back in the order of the candidates, as :func:`netlint.loading.load_file` gives them.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from typing import TYPE_CHECKING

from netlint.discovery import Candidate
from netlint.loading import FileResult, load_file
from netlint.packing import Packed, pack, unpack

if TYPE_CHECKING:
    from netlint.cache import Cache


@dataclass
class Entry:
    """A cache entry of one file: what loading it gave, and the other paths it looked at."""
    packed: Packed
    deps: tuple[tuple[str, str], ...]  # (absolute path, fingerprint)


def read(cand: Candidate) -> bytes | None:
    """The bytes :class:`~netlint.source.SourceFile` would read, or None (refused, unreadable: such a
    file is loaded as before and reports why)."""
    if cand.refused:
        return None
    if not cand.explicit:  # found by walking: discovery resolved it to a regular file inside the project
        return _read_walked(cand.abspath)
    from netlint.safe_read import Refused, read_bytes

    try:
        return read_bytes(cand.abspath)
    except (Refused, OSError, ValueError, RuntimeError):
        return None


def _read_walked(path) -> bytes | None:
    """safe_read.read_bytes without resolving the path again (a realpath per file was a third of a warm
    run): opened without blocking and read only if it is still a regular file within max-file-mb."""
    from netlint import limits

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except (OSError, ValueError):
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limits.current().max_file_bytes:
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(limits.current().max_file_bytes + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) <= limits.current().max_file_bytes else None


def load_many(cands: list[Candidate], workers: int, cache: "Cache | None",
              pool_threshold: int) -> list[FileResult]:
    out: list[FileResult | None] = [None] * len(cands)
    todo: list[tuple[int, Candidate, bytes, str | None]] = []
    for i, cand in enumerate(cands):
        data = cache.data_of(cand) if cache is not None else read(cand)
        if data is None:
            out[i] = load_file(cand)
            if cache is not None:
                cache.note(cand, None, ())  # not read: no loader ran, nothing else was looked at
            continue
        key = cache.file_key(cand.rel, cand.explicit, data) if cache is not None else None
        if cache is not None:
            res = _from_cache(cache, key, cand, data)
            if res is not None:
                out[i] = res
                continue
        todo.append((i, cand, data, key))
    pooled = _pooled(todo, workers) if workers > 1 and len(todo) >= pool_threshold else None
    for i, cand, data, key in todo:
        got = next(pooled) if pooled is not None else None  # unpacked here while workers load the next
        if got is None:
            got = _load_recorded(cand, data, None, cache is not None)
        out[i] = _keep(got, cand, data, key, cache)
    return out  # type: ignore[return-value]


def _from_cache(cache: "Cache", key: str, cand: Candidate, data: bytes) -> FileResult | None:
    entry = cache.get_file(key)
    if not isinstance(entry, Entry) or entry.packed.rel != cand.rel:
        return None
    if not deps_unchanged(entry.deps):
        return None
    try:
        res = unpack(entry.packed, _source(cand, data))
    except Exception:  # a model class that changed shape under the same version: load again
        return None
    cache.note(cand, key, entry.deps)
    return res


def _keep(got, cand: Candidate, data: bytes, key: str | None, cache: "Cache | None") -> FileResult:
    """The FileResult of what loading gave (a Packed with its dependencies, or a FileResult that did
    not pack); the Packed is written to the cache as it is."""
    if isinstance(got, FileResult):
        if cache is not None:
            cache.note(cand, key, None)
        return got
    packed, deps, live = got
    res = live
    if res is None:
        try:
            res = unpack(packed, _source(cand, data))
        except Exception:
            return load_file(cand)
    if cache is not None and key is not None:
        cache.note(cand, key, deps)
        if not packed.internal_error:
            cache.put_file(key, Entry(packed, deps))
    return res


def _load_recorded(cand: Candidate, data: bytes, bounds: tuple | None, want_packed: bool):
    """Load one file, noting the other paths it looks at. In a worker (``bounds`` given) the result is
    packed to travel; in this process the live result is kept and packed only for the cache."""
    from netlint import safe_read

    before, safe_read.touched = safe_read.touched, set()
    try:
        res = load_file(cand, bounds, data)
        seen = safe_read.touched
    finally:
        safe_read.touched = before
    if not want_packed and bounds is None:
        return res
    try:
        packed = pack(res)
    except Exception:  # a model that does not pickle: this file is not cached, sent as it is
        return res
    own = os.path.abspath(cand.abspath)
    deps = tuple(sorted((p, dep_print(p)) for p in seen if p != own))
    return packed, deps, (None if bounds is not None else res)


def _worker(item: tuple[Candidate, bytes], bounds: tuple):
    cand, data = item
    return _load_recorded(cand, data, bounds, True)


def _pooled(todo: list, workers: int):
    """What the workers send back, in order, as they finish; None for each file left when the pool
    fails (a worker that died, a result that does not pickle): that file is loaded here."""
    from concurrent.futures import ProcessPoolExecutor
    from functools import partial

    from netlint import limits
    from netlint.loaders.base import load_loaders

    load_loaders()  # import before forking so workers inherit the registry
    work = partial(_worker, bounds=(limits.current(), limits.root()))
    items = [(cand, data) for _, cand, data, _ in todo]
    sent = 0
    try:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for got in pool.map(work, items, chunksize=max(1, len(items) // (workers * 16))):
                sent += 1
                yield got
    except Exception:
        pass
    for _ in range(len(items) - sent):
        yield None


def _source(cand: Candidate, data: bytes):
    from netlint.source import SourceFile

    return SourceFile(cand.rel, cand.abspath, data)


def fingerprint(path: str) -> str:
    """What a file a loader looked at is now: missing, not a regular file, or its contents' digest."""
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
    except (OSError, ValueError, RuntimeError):
        return "missing"
    if not stat.S_ISREG(st.st_mode):
        return f"mode {stat.S_IFMT(st.st_mode)}"
    if st.st_size > 64 << 20:  # never read whole by a loader (limits.max-file-mb)
        return f"{real} size {st.st_size} mtime {st.st_mtime_ns}"
    try:
        with open(real, "rb") as fh:
            digest = hashlib.blake2b(fh.read(), digest_size=16).hexdigest()
    except OSError:
        return "unreadable"
    return f"{real} {digest}"


def dep_print(path: str) -> str:
    """What a file a loader looked at is now, by its stat (as git's index); with its contents' digest
    when it changed less than netlint.cache.RACY_NS ago (a coarse clock could hide a later edit)."""
    import time

    from netlint.cache import RACY_NS

    sig = _stat_sig(path)
    if sig is None or not sig[1]:
        return sig[0] if sig is not None else "missing"
    recent = time.time_ns() - sig[1] < RACY_NS
    return f"{sig[0]} {fingerprint(path)}" if recent else sig[0]


def deps_unchanged(deps) -> bool:
    for path, recorded in deps:
        sig = _stat_sig(path)
        now = sig[0] if sig is not None else "missing"
        if recorded == now:
            continue
        if sig is None or not recorded.startswith(now + " ") or recorded != f"{now} {fingerprint(path)}":
            return False
    return True


def _stat_sig(path: str) -> tuple[str, int] | None:
    """(signature, newest of mtime and ctime in ns; 0 for what is not a regular file) or None."""
    try:
        real = os.path.realpath(path)
        st = os.stat(real)
    except (OSError, ValueError, RuntimeError):
        return None
    if not stat.S_ISREG(st.st_mode):
        return f"mode {stat.S_IFMT(st.st_mode)}", 0
    return f"{real} {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns} {st.st_ino}", max(st.st_mtime_ns, st.st_ctime_ns)
