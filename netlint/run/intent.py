"""The repo's intent a run log is judged against: the inventory, the NCCL env that applies to the log,
and what NCCL is known to print when it reads a variable.

Which env applies to a log: the env files of its directory and the directories above it (the rule of
:mod:`netlint.nccl.scope` for a job's file), else — when the repo has exactly one launch and the log
shows NCCL reading one of that launch's variables with its value — that launch's env. Otherwise which
launch produced the log is unknown and the env-based rules stay silent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from netlint.models.run import NcclRun, RunLog
    from netlint.workspace import Workspace

RDMA = ("roce", "infiniband", "efa", "gpudirect-tcpx", "gpudirect-tcpxo")

# When NCCL prints ``NAME set (by environment) to VALUE`` for a variable that is set, by what the rest
# of the log shows happened (NVIDIA/nccl@68b54236, v2.23.4-1):
# - always: NCCL_SOCKET_IFNAME, every bootstrap (src/misc/socket.cc L330-334); NCCL_ALGO and
#   NCCL_PROTO, every communicator's tuning (src/graph/tuning.cc L292-300);
# - ib: NCCL's IB transport initialised (a "NET/IB" line): NCCL_IB_HCA (src/transport/net_ib.cc L523-524);
# - ib-net: connections over it ("via NET/IB"): NCCL_IB_TC, NCCL_IB_TIMEOUT (NCCL_PARAM, printed when
#   first read by src/misc/param.cc L86; read at QP setup, net_ib.cc L1085, L1119);
# - roce-net: over RoCE ports: NCCL_IB_GID_INDEX (net_ib.cc L403-404, only for an Ethernet link layer);
# - net: any network connection: NCCL_NET_GDR_LEVEL (src/graph/paths.cc L395 via ncclGetLevel, L240);
# - p2p: two GPUs of one node connected: NCCL_P2P_LEVEL (paths.cc L286 via ncclGetLevel).
# ncclGetLevel prints the level's name (topoPathTypeStr, src/graph/topo.cc L26), numbers mapped by
# levelsOldToNew (paths.cc L209): compared as names.
READ_WHEN: dict[str, str] = {
    "NCCL_SOCKET_IFNAME": "always", "NCCL_ALGO": "always", "NCCL_PROTO": "always", "NCCL_IB_HCA": "ib",
    "NCCL_IB_TC": "ib-net", "NCCL_IB_TIMEOUT": "ib-net", "NCCL_IB_GID_INDEX": "roce-net",
    "NCCL_NET_GDR_LEVEL": "net", "NCCL_P2P_LEVEL": "p2p",
}
LEVELS = ("LOC", "NVL", "NVB", "PIX", "PXB", "PXN", "PHB", "SYS")
OLD_LEVELS = ("LOC", "PIX", "PXB", "PHB", "SYS", "SYS")


def runs(ws: "Workspace") -> list["RunLog"]:
    from netlint.models.run import RunLog

    return [r for r in getattr(ws, "runs", ()) if isinstance(r, RunLog)]


def nccl_runs(ws: "Workspace") -> list[tuple["RunLog", "NcclRun"]]:
    return [(r, r.nccl) for r in runs(ws) if r.nccl is not None]


def transport(ws: "Workspace") -> str | None:
    try:
        return ws.inventory.fabric.transport.value
    except AttributeError:
        return None


def transport_span(ws: "Workspace"):
    try:
        return ws.inventory.fabric.transport.span
    except AttributeError:
        return None


def env_for(ws: "Workspace", log: "RunLog") -> dict[str, Any] | None:
    """name → the NcclVar the launch that wrote ``log`` sets (known, unconditional values only), or
    None when which launch wrote it is unknown."""
    from netlint.nccl import scope

    def compute(w):
        out = {}
        groups = scope.launch_groups(w)
        for r in runs(w):
            group = [e for e in scope.envs_for_file(w, r.file) if e.file != r.file]
            by_dir = bool(group)
            if not group and len(groups) == 1:
                group = groups[0][1]
            if not group or scope.incomplete(group):
                out[r.file] = None
                continue
            eff = {k: v for k, v in scope.effective(group).items() if v.known is not None and not v.conditional}
            # The repo's only launch is this log's only when the log shows one of its values read as set.
            if not by_dir and not (r.nccl and any(e.name in eff and same_value(e.name, eff[e.name].known.strip(),
                                                                                e.value.strip())
                                                  for e in r.nccl.env if e.rejected is None)):
                out[r.file] = None
                continue
            out[r.file] = eff
        return out

    return ws.derived("run.env_for", compute).get(log.file)


def shows(run: "NcclRun", condition: str) -> bool:
    """Does the log show that the code path which reads a variable (READ_WHEN) ran?"""
    if condition == "always":
        return run.info_lines > 0
    ib = bool(run.ib_ports or run.ib_no_device)
    if condition == "ib":
        return ib
    ib_net = any(c.net == "IB" for c in run.channels)
    if condition == "ib-net":
        return ib_net
    if condition == "roce-net":
        return ib_net and any(p.link == "RoCE" for p in run.ib_ports)
    if condition == "net":
        return bool(run.channels)
    if condition == "p2p":
        return any(p.value.startswith("P2P/") for p in run.paths)
    return False


def level_name(value: str) -> str | None:
    """The path level NCCL reads from a ``*_LEVEL`` value (paths.cc L210-245), or None (not read)."""
    value = value.strip()
    if value in LEVELS:
        return value
    if value[:1].isdigit():
        from netlint.nccl.values import int_value

        n = int_value(value)
        if n is None:
            digits = "".join(ch for ch in value if ch.isdigit()) or "0"
            n = int(digits[:6])
        return OLD_LEVELS[min(max(n, 0), len(OLD_LEVELS) - 1)]
    return None


def same_value(name: str, written: str, read: str) -> bool | None:
    """Does the value the env writes equal the one NCCL says it read? None when it cannot say."""
    from netlint.nccl.values import int_value

    if name.endswith("_LEVEL"):
        a = level_name(written)
        return None if a is None else a == read.strip()
    if int_value(read) is not None:   # "%lld." / "%d": NCCL parsed a number (strtoll, base 0)
        a = int_value(written)
        return None if a is None else a == int_value(read)
    return written == read


def plugin_failures(run: "NcclRun") -> list:
    """NET/Plugin lines that say a plugin failed to load — not the ordinary absence of the default
    ``libnccl-net.so`` (NCCL looks for it on every start, src/net.cc L399-405)."""
    import re

    out = []
    for f in run.plugin_failed:
        names = [n for n in re.findall(r"[\w.+-]+\.so\b", f.value) if n != "libnccl-net.so"]
        absent = any(s in f.value for s in ("Could not find", "No such file", "No plugin found"))
        if names or not absent:
            out.append(f)
    return out
