from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.rules.base import Rule
from netlint.rules.run._common import related_var


class GidIndexUsed(Rule):
    """The RoCE GID index the run's queue pairs used differs from the inventory's or the env's.

    What: on RoCE ports NCCL logs each queue pair's GID index (``NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn …
    GID 3 (…)``, with ``NCCL_DEBUG_SUBSYS`` including NET) and the index it read from the environment
    (``NCCL_IB_GID_INDEX set by environment to 3.``). The index used is compared with the inventory's
    `roce_gid_index` and — for the queue pairs' own lines — with `NCCL_IB_GID_INDEX` of the env that
    applies to the log. (A value read that differs from the env file is RUN707's.)

    Why: a GID of the wrong RoCE version or address family makes connections fail or traffic leave
    the lossless class (NCCL's GID selection, and ``NCCL_IB_GID_INDEX``, decide which).

    Bad:  ``… GID 0 (FE80/…)`` with `roce_gid_index: 3`
    Good: ``… GID 3 (0/…FFFF0000)``

    Fix: none automatic — `NCCL_IB_GID_INDEX` to the inventory's index (XC605 checks the env), or
    correct the inventory.

    Source: NVIDIA/nccl@68b54236 (v2.23.4-1) ``src/transport/net_ib.cc`` L380-430 (``ncclIbGetGidIndex``:
    ``NCCL_IB_GID_INDEX``, else a RoCE v2 GID of ``NCCL_IB_ADDR_FAMILY``), L1252 (the QP line with its
    GID index); v2.29.2-1 ``src/transport/net_ib/connect.cc`` L649; ``src/misc/param.cc`` L86.
    """

    code = "RUN705"
    name = "gid-index-used"
    summary = "RoCE GID index used differs from the inventory or NCCL_IB_GID_INDEX"
    severity = Severity.ERROR
    tags = ("run", "nccl", "inventory")

    def check(self, ws) -> Iterator[Finding]:
        from netlint.run.intent import env_for, nccl_runs

        declared = [] if ws.inventory is None else \
            [g.roce_gid_index for g in ws.inventory.node_groups if g.roce_gid_index is not None]
        wanted = sorted({d.value for d in declared})
        for log, run in nccl_runs(ws):
            if not any(p.link == "RoCE" for p in run.ib_ports) and not run.gids:
                continue
            used = [(g.value[2], g.span) for g in run.gids]
            from_qp = bool(used)
            if not used:
                used = [(int(e.value), e.span)
                        for e in run.env_reads("NCCL_IB_GID_INDEX") if e.value.lstrip("-").isdigit() and int(e.value) >= 0]
            if not used:
                continue
            env = env_for(ws, log) or {}
            var = env.get("NCCL_IB_GID_INDEX")
            from netlint.nccl.values import int_value

            env_index = int_value(var.known) if var is not None else None
            for index, span in _first_each(used):
                if wanted and index not in wanted:
                    yield self.finding(
                        f"the run's queue pairs used GID index {index}, but the inventory's RoCE v2 GID index is "
                        f"{'/'.join(map(str, wanted))}" if from_qp else
                        f"the run read NCCL_IB_GID_INDEX={index}, but the inventory's RoCE v2 GID index is "
                        f"{'/'.join(map(str, wanted))}", span, key=f"{log.file}:gid-inv:{index}",
                        related=(Related(declared[0].span, f"roce_gid_index: {declared[0].value}"),))
                elif from_qp and env_index is not None and env_index >= 0 and index != env_index:
                    yield self.finding(f"the run's queue pairs used GID index {index}, but NCCL_IB_GID_INDEX="
                                       f"{var.known} in the env", span, key=f"{log.file}:gid-env:{index}",
                                       related=related_var(var))


def _first_each(used):
    seen = set()
    for index, span in used:
        if index not in seen:
            seen.add(index)
            yield index, span
