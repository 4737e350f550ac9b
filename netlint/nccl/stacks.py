"""Registries of the other collective stacks' environment variables, read lazily from ``netlint/data``.

One TSV per stack (``env-efa.tsv``, ``env-torch.tsv``, ``env-rccl.tsv``, ``env-tcpx.tsv``,
``env-ucx.tsv``, ``env-sharp.tsv``, ``env-rdma.tsv``). Each starts with ``# key: value`` header lines that name the project source the
rows were generated from or checked against (``source:``, a commit), the release it reflects
(``version:``) and the name prefixes the file lists completely at that version (``complete:``: an
unknown name there is reported even without a near miss). Columns: see :data:`COLUMNS`.

The stacks are judged by the NCCL3xx rules (DESIGN.md: one registry per stack, the same machinery):
NCCL325 unknown or misspelt names, NCCL326 values the stack rejects, NCCL327 deprecated and removed
names. Did-you-mean looks across every registry, NCCL's own included, so ``FI_EFA_USE_DEVICE_RDAM``
finds ``FI_EFA_USE_DEVICE_RDMA`` and ``NCCL_GPUDIRECTTCPX_TX_BINDING`` finds the TCPX plugin's name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data"
KEYS = ("efa", "torch", "rccl", "tcpx", "ucx", "sharp", "rdma")
COLUMNS = ("name", "type", "allowed", "default", "added", "removed", "status", "replacement", "meaning",
           "evidence")
HEADER_KEYS = ("registry", "title", "reader", "source", "version", "complete")

# Which registry judges a name, by prefix (longest wins). A prefix here is the stack's namespace;
# names of the stack's other components (libfabric's other providers) are left alone.
PREFIXES: dict[str, str] = {
    "OFI_NCCL_": "efa", "FI_": "efa",
    "TORCH_NCCL_": "torch", "TORCH_FR_": "torch", "TORCH_DISTRIBUTED_": "torch",
    "RCCL_": "rccl", "HSA_": "rccl", "HIP_": "rccl", "ROCR_": "rccl",
    "NCCL_GPUDIRECTTCPX_": "tcpx", "NCCL_FASTRAK_": "tcpx",
    # GCP's GPUViz telemetry library and shim layer, closed source, shipped with the TCPXO plugin (google/
    # nccl-plugin-gpudirect-tcpxo README, fastrak_offload/profiler_gpuviz.cc; GCP's run-nccl-tcpxo.sh sets
    # NCCL_SHIMNET_SHIM_LAYERS): their names are the stack's, never NCCL's
    "NCCL_GPUVIZ_": "tcpx", "NCCL_SHIMNET_": "tcpx",
    "UCX_": "ucx",
    "RDMAV_": "rdma", "IBV_": "rdma", "VERBS_LOG_": "rdma",
}
# libfabric providers other than EFA (prov/ of ofiwg/libfabric@af8ddbe9): their FI_<PROV>_* names are
# theirs, never a misspelt EFA or core name.
OTHER_FI_PROVIDERS = ("COLL", "CXI", "HOOK", "LNX", "LPP", "MRAIL", "OPX", "PSM2", "PSM3", "RXD", "RXM",
                      "SHM", "SM2", "SOCKETS", "TCP", "UCX", "UDP", "USNIC", "VERBS", "OFI_RXM", "NETDIR",
                      "GNI", "BGQ", "MLX", "RSTREAM", "PERF", "TRACE", "PROFILE", "DMABUF_PEER_MEM")


@dataclass(frozen=True)
class StackVar:
    name: str
    type: str
    allowed: str
    default: str
    added: str
    removed: str
    status: str          # active | deprecated | alias | removed | removed-error
    replacement: str
    meaning: str
    evidence: str
    stack: str

    @property
    def gone(self) -> bool:
        return self.status in ("removed", "removed-error")


@dataclass
class Stack:
    key: str
    header: dict[str, str]
    vars: dict[str, StackVar] = field(default_factory=dict)

    @property
    def title(self) -> str:
        return self.header.get("title", self.key)

    @property
    def reader(self) -> str:
        """Who reads the names, for messages ("libfabric or aws-ofi-nccl")."""
        return self.header.get("reader", self.title)

    @property
    def source(self) -> str:
        return self.header.get("source", "")

    @property
    def version(self) -> str:
        return self.header.get("version", "")

    @property
    def complete(self) -> tuple[str, ...]:
        value = self.header.get("complete", "-").strip()
        return () if value in ("", "-") else tuple(value.split())

    def owns_completely(self, name: str) -> bool:
        return any(name.startswith(p) for p in self.complete)


def parse(text: str, key: str) -> Stack:
    header: dict[str, str] = {}
    rows: list[list[str]] = []
    columns: tuple[str, ...] | None = None
    for line in text.splitlines():
        if not line.strip():
            continue
        if line.startswith("#"):
            k, _, v = line[1:].partition(":")
            header.setdefault(k.strip(), v.strip())
            continue
        cells = line.split("\t")
        if columns is None:
            columns = tuple(cells)
            if columns != COLUMNS:
                raise RuntimeError(f"env-{key}.tsv: unexpected columns {cells}")
            continue
        rows.append(cells)
    stack = Stack(key=key, header=header)
    for cells in rows:
        row = dict(zip(COLUMNS, cells))
        stack.vars[row["name"]] = StackVar(stack=key, **row)
    return stack


@cache
def stacks() -> dict[str, Stack]:
    return {k: parse((DATA / f"env-{k}.tsv").read_text(encoding="utf-8"), k) for k in KEYS}


def stack_of(name: str) -> str | None:
    """The registry that judges ``name`` by its prefix, or None."""
    best = None
    for prefix, key in PREFIXES.items():
        if name.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, key)
    if best is None:
        return None
    if best[0] == "FI_" and name[3:].startswith(tuple(p + "_" for p in OTHER_FI_PROVIDERS)):
        return None
    return best[1]


def lookup(name: str) -> StackVar | None:
    """The row of ``name`` in the registry its prefix names, else in any other."""
    regs = stacks()
    key = stack_of(name)
    if key is not None and name in regs[key].vars:
        return regs[key].vars[name]
    for stack in regs.values():
        if name in stack.vars:
            return stack.vars[name]
    return None


def known(name: str) -> bool:
    return lookup(name) is not None


@cache
def _candidates() -> tuple[str, ...]:
    from netlint.nccl.registry import registry

    names = {n for s in stacks().values() for n, v in s.vars.items() if not v.gone}
    names |= {n for n, v in registry().vars.items() if v.status != "removed"}
    return tuple(sorted(names))


def _prefix_len(name: str) -> int:
    hits = [p for p in PREFIXES if name.startswith(p)]
    return max(map(len, hits)) if hits else (5 if name.startswith("NCCL_") else 0)


def suggest(name: str) -> str | None:
    """The closest registered name across every registry (NCCL's included), or None.

    The edit budget scales with the part after the stack's prefix, as NCCL301's does after ``NCCL_``;
    a name of another libfabric provider (``FI_TCP_IFACE``) gets no suggestion."""
    from netlint.nearest import distance
    from netlint.nearest import by_distance

    upper = name.upper()
    if upper.startswith("FI_") and stack_of(upper) is None:
        return None
    core = len(upper) - _prefix_len(upper)
    budget = 1 if core <= 5 else 2 if core <= 14 else 3
    best = by_distance(upper, _candidates(), budget, distance)
    if best is not None and best != name:
        return best
    return None


def case_match(name: str) -> str | None:
    upper = name.upper()
    for cand in _candidates():
        if cand.upper() == upper and cand != name:
            return cand
    return None


# --- values the repo's own files read ($FI_PROVIDER in a manifest passes a value on, not a setting) ---

def read_names(ws) -> frozenset[str]:
    """Stack-prefixed names some file of the workspace expands (``$UCX_TLS``, ``${FI_PROVIDER:-efa}``)."""
    pattern = re.compile(r"\$\{?[#!]?((?:" + "|".join(re.escape(p) for p in PREFIXES) + r")[A-Za-z0-9_]*)")

    def compute(w) -> frozenset[str]:
        names: set[str] = set()
        for file in w.sources:
            text = w.text(file)
            if not text or "$" not in text:
                continue
            for m in pattern.finditer(text):
                name = m.group(1)
                before = text[max(0, m.start() - len(name) - 2):m.start()]
                if not before.endswith((name + "=", name + '="', name + "='")):
                    names.add(name)
        return frozenset(names)

    return ws.derived("nccl.stack_read_names", compute)
