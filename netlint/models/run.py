"""What a run printed: one :class:`RunLog` per NCCL debug log or nccl-tests output (workspace ``runs``).

The evidence side of the loop (issue 18): configs say what should happen, the run's own output says
what did. :mod:`netlint.run.nccl_log` and :mod:`netlint.run.nccl_tests` read the text line by line
into these located records; the RUN7xx rules compare them with the inventory, the NCCL env files and
the pinned release. Every :class:`Fact` keeps the span of the token on its log line, so a finding
points at the line (and column) of the log that shows it.

Dataclasses with slots, not pydantic models: a log holds tens of thousands of channel lines, and
the records are built once and only read. Lists of repeated lines are bounded
(:data:`MAX_RECORDS`); what a bound left out is counted in ``dropped``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from netlint.compact import compact
from netlint.located import Span

MAX_RECORDS = 16384   # per list of repeated lines (channels, warnings, rows)
# Lists whose first lines are all rules need (that a path, NVLS, a plugin failure was seen): kept short,
# and what is left out is not worth an NL012.
EXISTENCE = {"paths": 64, "nvls_used": 64, "collnet_used": 64, "gdr_disabled": 64, "ofi": 64, "socket_ifs": 256,
             "plugin_failed": 64, "plugin_loaded": 64}
# Variables whose "set by environment" line NCCL prints under NCCL_ALL, whatever NCCL_DEBUG_SUBSYS says.
ALL_FLAG = ("NCCL_P2P_LEVEL", "NCCL_NET_GDR_LEVEL", "NCCL_P2P_DISABLE", "NCCL_COLLNET_ENABLE")


@compact
@dataclass(slots=True)
class Fact:
    """A value read from a log line, with the span of its token."""

    value: Any
    span: Span
    host: str | None = None     # the NCCL line prefix's hostname, when the line has one


@compact
@dataclass(slots=True)
class IbPort:
    """A device of ``NET/IB : Using [0]mlx5_0:1/RoCE …`` (net_ib.cc: the devices NCCL's IB transport uses)."""

    index: int
    hca: str
    port: int
    link: str                   # IB | RoCE
    span: Span
    host: str | None = None


@compact
@dataclass(slots=True)
class NetChannel:
    """``Channel 02/0 : 0[0] -> 8[0] [send] via NET/IB/1/GDRDMA``: one network connection of a channel."""

    channel: int
    rank: int
    peer: int
    direction: str              # send | receive
    net: str                    # the network's name: IB, Socket, AWS Libfabric, gIB …
    dev: int
    gdr: bool
    span: Span                  # the ``NET/…`` token
    host: str | None = None


@compact
@dataclass(slots=True)
class EnvRead:
    """``NCCL_IB_GID_INDEX set by environment to 3.``: a variable NCCL says it read, and its value."""

    name: str
    value: str
    span: Span                  # the value token
    name_span: Span
    host: str | None = None
    rejected: str | None = None  # "Invalid value X for NAME, using default D.": X (value is then D)
    by_env: bool = False          # "… set by environment to …" (not "… set to …")


@compact
@dataclass(slots=True)
class CommInfo:
    """``comm 0x… rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0`` (init.cc)."""

    rank: int
    nranks: int
    nnodes: int
    local_ranks: int
    mnnvl: int | None
    span: Span


@dataclass
class NcclRun:
    """What NCCL's INFO/WARN/TRACE lines say. Lists hold lines in file order."""

    first: Span | None = None                        # the first NCCL line of the file
    versions: list[Fact] = field(default_factory=list)        # "2.23.4" (NCCL version line)
    networks: list[Fact] = field(default_factory=list)        # "Using network IB"
    plugin_loaded: list[Fact] = field(default_factory=list)   # plugin names NCCL says it loaded
    plugin_failed: list[Fact] = field(default_factory=list)   # NET/Plugin lines that say loading failed
    ib_ports: list[IbPort] = field(default_factory=list)
    ib_no_device: list[Fact] = field(default_factory=list)    # "NET/IB : No device found."
    socket_ifs: list[Fact] = field(default_factory=list)      # "NET/Socket : Using [0]eth0:…"
    ofi: list[Fact] = field(default_factory=list)             # NET/OFI provider/fabric lines
    gids: list[Fact] = field(default_factory=list)            # (hca index, GID index) of NET/IB QP lines
    channels: list[NetChannel] = field(default_factory=list)
    paths: list[Fact] = field(default_factory=list)           # "P2P/CUMEM/read", "SHM/direct/direct"
    gdr_disabled: list[Fact] = field(default_factory=list)    # "GPU Direct RDMA Disabled for GPU …"
    rings_gdr: list[Fact] = field(default_factory=list)       # "Connected all rings, use ring PXN 0 GDR 1"
    env: list[EnvRead] = field(default_factory=list)
    warnings: list[Fact] = field(default_factory=list)
    comms: list[CommInfo] = field(default_factory=list)
    channel_counts: list[Fact] = field(default_factory=list)  # {coll, collnet, nvls, p2p, p2p_per_peer}
    nvls_support: list[Fact] = field(default_factory=list)    # True/False per "NVLS multicast support is …"
    nvls_used: list[Fact] = field(default_factory=list)       # "NVLS comm …", "Connected NVLS", "NVLS Trees"
    collnet_used: list[Fact] = field(default_factory=list)    # "CollNet 00/0 : …", "Connected CollNet"
    rings: int = 0
    trees: int = 0
    hosts: set[str] = field(default_factory=set)
    info_lines: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    _seen: set = field(default_factory=set, repr=False)

    def add(self, name: str, item: Any, key: Any = None) -> None:
        """Append to the list ``name``: once per ``key`` (every rank prints the same line), and while
        the list is not full (then count what was dropped)."""
        if key is not None:
            if (name, key) in self._seen:
                return
            self._seen.add((name, key))
        items = getattr(self, name)
        limit = EXISTENCE.get(name, MAX_RECORDS)
        if len(items) < limit:
            items.append(item)
        elif name not in EXISTENCE:
            self.dropped[name] = self.dropped.get(name, 0) + 1

    def env_reads(self, name: str) -> list[EnvRead]:
        return [e for e in self.env if e.name == name]

    @property
    def network(self) -> Fact | None:
        """The network NCCL chose (the first ``Using network`` line), else the first channel's."""
        if self.networks:
            return self.networks[0]
        if self.channels:
            c = self.channels[0]
            return Fact(c.net, c.span, c.host)
        return None

    @property
    def version(self) -> Fact | None:
        return self.versions[0] if self.versions else None

    @property
    def reports_env(self) -> bool:
        """The ENV subsystem is logged (it is in NCCL_DEBUG_SUBSYS's default, INIT,BOOTSTRAP,ENV): some
        ``… set by environment to …`` line printed under the ENV flag — not the few NCCL prints under
        every flag (``*_LEVEL``/``NCCL_P2P_DISABLE``, src/graph/paths.cc L218-240; ``NCCL_COLLNET_ENABLE``,
        src/init.cc L881), which show even when ENV is not logged."""
        return any(e.by_env and e.rejected is None and e.name not in ALL_FLAG for e in self.env)


@compact
@dataclass(slots=True)
class TestDevice:
    """``#  Rank  0 Group  0 Pid  12345 on     node01 device  0 [0000:18:00] NVIDIA H100 80GB HBM3``."""

    rank: int
    host: str
    device: int
    name: str
    span: Span


@compact
@dataclass(slots=True)
class Cell:
    """One number of a result row, with its column's span."""

    value: float | None         # None for N/A
    span: Span


@compact
@dataclass(slots=True)
class TestRow:
    """One size of the nccl-tests table: out-of-place and in-place time, algbw, busbw, #wrong."""

    size: int                   # bytes (the size column)
    count: int
    dtype: str
    redop: str
    span: Span                  # the whole line
    size_span: Span
    oop: dict[str, Cell] = field(default_factory=dict)   # time, algbw, busbw, wrong
    ip: dict[str, Cell] = field(default_factory=dict)

    def busbw(self) -> float | None:
        """The better of out-of-place and in-place bus bandwidth (GB/s)."""
        vals = [c["busbw"].value for c in (self.oop, self.ip) if "busbw" in c and c["busbw"].value is not None]
        return max(vals) if vals else None

    def busbw_cell(self) -> Cell | None:
        cells = [c["busbw"] for c in (self.oop, self.ip) if "busbw" in c and c["busbw"].value is not None]
        return max(cells, key=lambda c: c.value) if cells else None

    def wrong(self) -> list[Cell]:
        return [c["wrong"] for c in (self.oop, self.ip) if "wrong" in c and c["wrong"].value]


@dataclass
class TestsRun:
    """One run of an nccl-tests binary (``all_reduce_perf`` …), from its parameters line to its footer."""

    start: Span                                   # the parameters line (or the first header line)
    program: Fact | None = None                   # "all_reduce_perf"
    params: dict[str, Any] = field(default_factory=dict)   # nThread, nGpus, minBytes, maxBytes, …
    devices: list[TestDevice] = field(default_factory=list)
    rows: list[TestRow] = field(default_factory=list)
    out_of_bounds: Fact | None = None             # "# Out of bounds values : 0 OK"
    avg_busbw: Fact | None = None                 # "# Avg bus bandwidth    : 123.4"
    columns: tuple[str, ...] = ()                 # the header's column names, as printed
    library: Fact | None = None                   # "2.30.4": the NCCL release the binary ran with
    unread_row: Span | None = None                # a line like a result row, before any header named the columns
    comm_shape: tuple[int, int] | None = None     # (ranks, nodes) from NCCL's own comm line, without device lines

    @property
    def collective(self) -> str | None:
        """all-reduce, all-gather, … (the fabric model's names), from the program name."""
        from netlint.run.expect import collective_of

        return collective_of(self.program.value) if self.program is not None else None

    @property
    def ranks(self) -> int | None:
        return len({d.rank for d in self.devices}) or None

    @property
    def hosts(self) -> list[str]:
        return sorted({d.host for d in self.devices})


@dataclass
class RunLog:
    """One file of run evidence: NCCL's log lines, nccl-tests results, or both (a test run with
    ``NCCL_DEBUG=INFO``)."""

    file: str
    span: Span
    lines: int = 0
    nccl: NcclRun | None = None
    tests: list[TestsRun] = field(default_factory=list)
    workspace_collection = "runs"
