from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Severity
from netlint.nccl import scope
from netlint.nccl.fixes import piece_span, value_fix
from netlint.nccl.registry import target_version
from netlint.nccl.values import check
from netlint.rules.base import Rule

# nccl.conf quirks that NCCL309 reports as the cause (quotes kept, inline comment, trailing space).
CONF_QUIRKS = {"quoted", "inline-comment", "trailing-space"}


def value_problems(ws, kind: str):
    """(var, problem) for every known NCCL value whose check yields a problem of ``kind``."""
    version = target_version(ws)
    for env, var in scope.nccl_assignments(ws):  # those that reach NCCL
        value = var.known
        if value is None or CONF_QUIRKS & set(var.flags):
            continue
        if var.key == "NCCL_IB_ADDR_RANGE" and _gid_index_set(env):
            continue  # with NCCL_IB_GID_INDEX set NCCL never reads the range (connect.cc L317-321)
        for p in check(var.key, value, version):
            if p.kind == kind:
                yield var, p


def _gid_index_set(env) -> bool:
    """NCCL_IB_GID_INDEX given as a number >= 0: NCCL then takes that GID and never reads NCCL_IB_ADDR_RANGE
    (NVIDIA/nccl@5067397c src/transport/net_ib/connect.cc L317-321; User Guide: the range applies "when
    NCCL_IB_GID_INDEX is left unset")."""
    gid = env.get("NCCL_IB_GID_INDEX") if hasattr(env, "get") else None
    known = gid.known if gid is not None else None
    return known is not None and known.strip().lstrip("+").isdigit()


class InvalidValue(Rule):
    """A value NCCL ignores, rejects or clamps: wrong type, outside its range, not in its set.

    What: the value is checked the way NCCL's source parses it: integer knobs against
    their documented range (`NCCL_IB_RETRY_CNT` 0..7, `NCCL_IB_TC` 0..255, `NCCL_NTHREADS` a
    multiple of 32 in 64..512, …); `NCCL_P2P_LEVEL`/`NCCL_NET_GDR_LEVEL` against the exact,
    case-sensitive level names (`phb` is ignored); `NCCL_ALGO`/`NCCL_PROTO` with NCCL's own grammar
    (tokens are not trimmed, so `Ring, Tree` fails); `NCCL_DEBUG` levels and `NCCL_DEBUG_SUBSYS`
    subsystems; the exact strings `AF_INET`/`AF_INET6`; CIDR ranges and `host:port` values.
    The finding points at the offending token. `NCCL_IB_ADDR_RANGE` is not judged beside a numeric
    `NCCL_IB_GID_INDEX`: NCCL then takes that GID and never reads the range. A `NCCL_DEBUG_SUBSYS` none
    of whose entries NCCL knows is a warning: before 2.30.7 the subsystem mask stays empty and NCCL
    prints nothing, its WARN lines included (v2.30.4-1 `src/debug.cc` L97, L324; `WARN()` logs with
    `NCCL_ALL`, `src/include/debug.h` L38).

    Why: NCCL reports almost none of these. A bad level or family is ignored silently, a bad
    `NCCL_DEBUG` turns logging *off*, one unknown `NCCL_DEBUG_SUBSYS` entry drops the whole value from NCCL 2.30.7 (releases up
    to 2.30.4 skip the entry — GCP's stock TCPX environment lists `VERSION` — so info unless the
    repo pins 2.30.7 or later),
    and an unknown `NCCL_ALGO`/`NCCL_PROTO` token makes every communicator fail with
    `ncclInvalidUsage` from NCCL 2.24.3 (earlier releases skip the token: a warning where the repo's
    `nccl-version` is older).

    Bad:  `NCCL_ALGO=Ring, Tree`, `NCCL_P2P_LEVEL=phb`, `NCCL_DEBUG=debug`, `NCCL_IB_RETRY_CNT=15`
    Good: `NCCL_ALGO=Ring,Tree`, `NCCL_P2P_LEVEL=PHB`, `NCCL_DEBUG=WARN`, `NCCL_IB_RETRY_CNT=7`

    Fix: where the intended value is clear (case, spaces, the clamped value) the fix writes it; it is
    unsafe because the run then behaves differently.

    Source: NVIDIA/nccl@5067397c (2.30.7) `src/misc/param.cc` L95 (integers:
    `strtoll(str, nullptr, 0)`), `src/graph/paths.cc` L243-279 with `src/graph/topo.cc` L34 (levels:
    exact, case-sensitive names, else a legacy integer, else ignored), `src/graph/tuning.cc` L55-135
    (`NCCL_ALGO`/`NCCL_PROTO` grammar; "Unrecognized element token" → `ncclInvalidUsage`; v2.23.4-1
    `src/graph/tuning.cc` L34-52: `parseList` skips a token no element matches) and L17-33
    (`NCCL_NTHREADS` clamped), `src/debug.cc` L45-78 (`NCCL_DEBUG` levels, `NCCL_DEBUG_SUBSYS`
    subsystems; v2.30.4-1 `src/debug.cc` L93-140 skips an unknown subsystem), `src/transport/net_ib/connect.cc` L103-108 (`NCCL_IB_ADDR_FAMILY`); NCCL User
    Guide, Environment Variables; `ibv_modify_qp(3)` (`retry_cnt` is 3 bits); NVIDIA/nccl#1814,
    #432; FlagAI-Open/FlagAI `run_multi.sh` (`NCCL_DEBUG=debug`); netlint's registry
    `netlint/data/nccl-env.tsv` (`allowed` column).
    """

    code = "NCCL303"
    name = "invalid-value"
    summary = "Value NCCL ignores, rejects or clamps"
    severity = Severity.ERROR
    tags = ("nccl",)

    def check(self, ws) -> Iterator[Finding]:
        for var, p in value_problems(ws, "invalid"):
            fix = value_fix(var, p.fix, ws, f"write {var.key}={p.fix}", p.safe) if p.fix else None
            yield self.finding(p.message, piece_span(var, p.start, p.end), key=var.key, fix=fix,
                               severity=Severity.parse(p.severity))
