"""The NCCL environment-variable registry, read lazily from ``netlint/data/nccl-env.tsv``.

The TSV was extracted from NCCL's source and binaries (``COLUMNS`` below names its columns). It
reflects NVIDIA/nccl master ``5067397c`` = **2.30.7** (every ``NCCL_PARAM``/``ncclGetEnv`` read in
``src/``), the **2.32.3** ``libnccl.so.2`` of the PyPI wheel (strings and the parameter-registry
dump), the history of all 73 release tags (first seen / removed) and the User Guide ``env.rst``
(2.30.5). Rows: ``active`` (read by 2.30.7 and/or 2.32.3), ``deprecated`` (still read, replaced),
``removed`` (read by an older release only) and ``external`` (an ``NCCL_*`` name that PyTorch, a net
plugin or nccl-tests reads; never "unknown").

``nccl_version`` (netlint's setting) makes version-dependent answers exact: a name added after the
release a repo runs is not read by it, and a name removed later still is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

# The releases the data file reflects.
SOURCE_VERSION = "2.30.7"     # NVIDIA/nccl master 5067397c2676d5aed50042fc39e5c8ee96eb0027
BINARY_VERSION = "2.32.3"     # nvidia-nccl-cu12==2.32.3 libnccl.so.2 (ground truth for names)
REGISTRY_VERSION = BINARY_VERSION
DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "nccl-env.tsv"

COLUMNS = ("name", "type", "allowed", "default", "since_deprecated", "category", "meaning", "status",
           "evidence", "in_wheel_2_32_3", "documented")

# Replacements of deprecated/removed names (NVIDIA/nccl release tags and the User Guide's env.rst).
# ``rename`` marks a 1:1 rename (same values mean the same thing), which a fix may apply as a plain
# rename.
REPLACEMENTS: dict[str, tuple[str, bool]] = {
    "NCCL_MIN_NCHANNELS": ("NCCL_MIN_CTAS", True),
    "NCCL_MAX_NCHANNELS": ("NCCL_MAX_CTAS", True),
    "NCCL_MIN_NRINGS": ("NCCL_MIN_CTAS", True),
    "NCCL_MAX_NRINGS": ("NCCL_MAX_CTAS", True),
    "NCCL_CHECK_POINTERS": ("NCCL_CHECK_MODE=DEBUG_LOCAL", False),
    # NCCL_CHECK_MODE only adds debug checks (DEBUG_LOCAL/DEBUG_GLOBAL, src/init.cc): nothing replaces it
    "NCCL_CHECKS_DISABLE": ("remove it: argument checks cannot be turned off (NCCL_CHECK_MODE only adds "
                            "debug checks)", False),
    "NCCL_IB_CUDA_SUPPORT": ("NCCL_NET_GDR_LEVEL", False),
    "NCCL_IB_GDR_LEVEL": ("NCCL_NET_GDR_LEVEL", True),
    "NCCL_LL_THRESHOLD": ("NCCL_PROTO", False),
    "NCCL_TREE_THRESHOLD": ("NCCL_ALGO", False),
    "NCCL_THREAD_THRESHOLD": ("NCCL_THREAD_THRESHOLDS", False),
    "NCCL_RINGS": ("NCCL_TOPO_FILE / NCCL_GRAPH_FILE", False),
    "NCCL_GRAPH": ("NCCL_GRAPH_FILE", True),
    "NCCL_GDRCOPY_TAIL_ENABLE": ("NCCL_GDRCOPY_SYNC_ENABLE (closest)", False),
    "NCCL_NCCL_ALLOC_P2P_NET_LL_BUFFERS": ("NCCL_ALLOC_P2P_NET_LL_BUFFERS", True),
    "NCCL_MNNVL": ("NCCL_MNNVL_ENABLE", True),
    "NCCL_WORK_FIFO_DEPTH": ("NCCL_WORK_FIFO_BYTES", False),
    "NCCL_PROXY_PROFILE": ("NCCL_PROFILER_PLUGIN", False),
}

# NCCL_* names that are compile-time constants in NCCL's source, not variables (NVIDIA/nccl@5067397c).
CONSTANTS = {
    "NCCL_NET_MAX_REQUESTS": "a compile-time constant of the net-plugin API",
    "NCCL_AGG_CHANNEL_SIZE": "a compile-time constant in NCCL's source",
    "NCCL_IB_SL_DEFAULT": "a compile-time default; the variable is NCCL_IB_SL",
    "NCCL_IB_TC_DEFAULT": "a compile-time default; the variable is NCCL_IB_TC",
}

_VERSION = re.compile(r"(\d+)\.(\d+|x)(?:\.(\d+))?")


def vtuple(text: str | None) -> tuple[int, ...] | None:
    """``"2.21"`` → (2, 21); ``"2.18.3-1"`` → (2, 18, 3); ``"1.x"`` → (1, 0); unparsable → None."""
    if not text:
        return None
    m = _VERSION.search(str(text))
    if not m:
        return None
    major, minor, patch = m.groups()
    out = (int(major), 0 if minor == "x" else int(minor))
    return out + (int(patch),) if patch is not None else out


def before(version: tuple[int, ...], limit: tuple[int, ...]) -> bool:
    """``version < limit``, compared at the precision of ``limit`` (2.20.5 is not before 2.20)."""
    return version[:len(limit)] < limit


@dataclass(frozen=True)
class Var:
    name: str
    type: str
    allowed: str
    default: str
    since_deprecated: str
    category: str
    meaning: str
    status: str
    evidence: str
    in_wheel: str
    documented: bool
    first: tuple[int, ...] | None      # first release that reads it (None: unknown or "<=2.3")
    last: tuple[int, ...] | None       # last release that reads it (removed names)
    removed_in: tuple[int, ...] | None # first release that no longer reads it

    @property
    def external(self) -> bool:
        return self.status == "external"

    @property
    def unconfirmed(self) -> bool:
        """Semantics inferred from a binary's strings only: rules judge no value of such a knob."""
        return "semantics unconfirmed" in self.meaning

    @property
    def replacement(self) -> str | None:
        if self.name in REPLACEMENTS:
            return REPLACEMENTS[self.name][0]
        m = re.search(r"->\s*(NCCL_[A-Z0-9_]+(?:=[A-Z_]+)?)", self.since_deprecated)
        return m.group(1) if m else None

    @property
    def renames_to(self) -> str | None:
        """The new name when the replacement is a 1:1 rename, else None."""
        rep = REPLACEMENTS.get(self.name)
        return rep[0] if rep and rep[1] else None

    @property
    def torch_name(self) -> str | None:
        """For PyTorch's legacy ``NCCL_*`` names: the ``TORCH_NCCL_*`` name that replaced it."""
        m = re.search(r"\b(TORCH_NCCL_[A-Z0-9_]+)", self.meaning)
        return m.group(1) if m and "PyTorch" in self.meaning else None

    @property
    def owner(self) -> str:
        """Who reads an external name (the meaning column starts with it)."""
        return re.split(r"[:(]", self.meaning, maxsplit=1)[0].strip() if self.external else "NCCL"

    def read_by(self, version: tuple[int, ...] | None) -> bool:
        """Does NCCL ``version`` read this name? ``None`` = the registry's own (newest) release."""
        if self.external:
            return False
        if version is None:
            return self.status in ("active", "deprecated")
        if self.first is not None and before(version, self.first):
            return False
        if self.removed_in is not None and not before(version, self.removed_in):
            return False
        if self.last is not None and version[:len(self.last)] > self.last:
            return False
        return True


def _first_last(since: str, status: str) -> tuple:
    text = since.strip()
    if text.startswith("n/a"):
        return None, None, None
    first = None if text.startswith("<=") else vtuple(text)
    last = removed = None
    m = re.match(r"^(?:<=)?(\d+\.\d+(?:\.\d+)?)\s*-\s*(\d+\.\d+(?:\.\d+)?)", text)
    if m:
        last = vtuple(m.group(2))
    m = re.match(r"^(\d+\.\d+(?:\.\d+)?) only", text)
    if m:
        last = vtuple(m.group(1))
    m = re.search(r"(?:removed|renamed)\s+(\d+\.\d+(?:\.\d+)?)", text)
    if m:
        removed = vtuple(m.group(1))
    if "absent from 2.32.3" in text:
        removed = (2, 31)  # in 2.30.7 source, not in the 2.32.3 binary (nvidia-nccl-cu12 wheel)
    if status == "removed" and last is None and removed is None:
        m = re.search(r"deprecated\s+(\d+\.\d+(?:\.\d+)?)", text)
        if m:  # "2.0.5; deprecated 2.2.12": ignored after that release
            last = vtuple(m.group(1))
    return first, last, removed


class Registry:
    def __init__(self, rows: list[dict[str, str]]):
        self.vars: dict[str, Var] = {}
        for r in rows:
            first, last, removed = _first_last(r["since_deprecated"], r["status"])
            self.vars[r["name"]] = Var(
                name=r["name"], type=r["type"], allowed=r["allowed"], default=r["default"],
                since_deprecated=r["since_deprecated"], category=r["category"], meaning=r["meaning"],
                status=r["status"], evidence=r["evidence"], in_wheel=r["in_wheel_2_32_3"],
                documented=r["documented"] == "yes", first=first, last=last, removed_in=removed)
        self._upper = {n.upper(): n for n in self.vars}
        self._suggestable = [n for n, v in self.vars.items() if v.status != "removed"]

    def __contains__(self, name: str) -> bool:
        return name in self.vars

    def __len__(self) -> int:
        return len(self.vars)

    def get(self, name: str) -> Var | None:
        return self.vars.get(name)

    def case_match(self, name: str) -> str | None:
        """The registered name that differs from ``name`` only in letter case."""
        hit = self._upper.get(name.upper())
        return hit if hit is not None and hit != name else None

    def suggest(self, name: str) -> str | None:
        """The closest registered (not removed) name, or None when nothing is close enough."""
        return closest(name, self._suggestable)


@cache
def registry() -> Registry:
    """The registry, parsed from the package data once per process."""
    text = DATA_FILE.read_text(encoding="utf-8")
    lines = text.splitlines()
    header = lines[0].split("\t")
    if tuple(header) != COLUMNS:
        raise RuntimeError(f"{DATA_FILE}: unexpected columns {header}")
    rows = [dict(zip(header, line.split("\t"))) for line in lines[1:] if line.strip()]
    return Registry(rows)


def target_version(ws) -> tuple[int, ...] | None:
    """The NCCL release the repo says it runs (``nccl-version`` setting), or None."""
    try:
        return vtuple(ws.config.settings.nccl_version)
    except AttributeError:
        return None


# --- did-you-mean ------------------------------------------------------------------------------

def _budget(name: str) -> int:
    core = name[5:] if name.startswith("NCCL_") else name
    return 1 if len(core) <= 5 else 2 if len(core) <= 14 else 3


def closest(name: str, candidates: list[str]) -> str | None:
    """A near miss: within a small edit distance (scaled by length), or the same words reordered."""
    from netlint.nearest import by_distance, distance

    upper = name.upper()
    best = by_distance(upper, tuple(candidates), _budget(upper), distance)
    if best is not None:
        return best
    for cand in candidates:  # NCCL_DEBUG_SUBSYSTEM: a known name plus a short tail
        if len(cand) >= 11 and upper.startswith(cand) and len(upper) - len(cand) <= 3:
            return cand
    words = sorted(upper.split("_"))
    for cand in candidates:
        if sorted(cand.split("_")) == words:
            return cand
    return None
