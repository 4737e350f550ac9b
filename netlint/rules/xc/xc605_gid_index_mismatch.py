from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.nccl import scope
from netlint.nccl.fixes import add_line, value_fix
from netlint.nccl.registry import before, target_version
from netlint.nccl.values import int_value
from netlint.rules.base import Rule

AUTO_SINCE = (2, 21)   # NCCL_IB_GID_INDEX default -1 (auto) from 2.21.5; 0 before (TAGS)


def _transport(ws):
    try:
        return ws.inventory.fabric.transport.value
    except AttributeError:
        return None


class GidIndexMismatch(Rule):
    """RoCE GID index: `NCCL_IB_GID_INDEX` differs from the inventory, or is unset on NCCL < 2.21.

    What: on a RoCE fabric (inventory `transport: roce`):
    - `NCCL_IB_GID_INDEX` set to another index than the node group's `roce_gid_index` (error);
    - without a declared index, `0` or `1`, which in the standard mlx5 GID table are the RoCE v1 and
      link-local entries (warning);
    - unset, in a launch that sets other `NCCL_IB_*` variables, while `nccl-version` is older than
      2.21, where the default was GID 0 (error). Since 2.21
      NCCL picks the RoCE v2 IPv4 GID itself, so unset is then fine.

    Why: the wrong GID makes QPs use RoCE v1 or a link-local address: "Got completion with error 12
    … vendor err 129" right after start, or `ibv_modify_qp` timeouts.

    Bad:  `NCCL_IB_GID_INDEX=0` (inventory `roce_gid_index: 3`)
    Good: `NCCL_IB_GID_INDEX=3`, or unset on NCCL ≥ 2.21

    Fix: the inventory's index (unsafe).

    Source: NVIDIA/nccl@5067397c (2.30.7) `src/transport/net_ib/connect.cc` L12 (`NCCL_IB_GID_INDEX`
    default -1 = auto), L298-330 (`ncclIbGetGidIndex`: on RoCE without an index, a valid non
    link-local GID of `NCCL_IB_ADDR_FAMILY` and RoCE version `NCCL_IB_ROCE_VERSION_NUM`, default 2);
    NVIDIA/nccl release tags (default 0 up to v2.20.5-1 `src/transport/net_ib.cc` L80, -1 from
    v2.21.5-1); NVIDIA/nccl#426, #769 (mlx5 GID table), #1131; pytorch/pytorch#81628; Juniper JVD,
    Appendix D.
    """

    code = "XC605"
    name = "gid-index-mismatch"
    summary = "NCCL_IB_GID_INDEX disagrees with the inventory's RoCE v2 GID index"
    severity = Severity.ERROR
    tags = ("nccl", "inventory", "cross-file")

    def check(self, ws) -> Iterator[Finding]:
        if _transport(ws) != "roce":
            return
        declared = [g.roce_gid_index for g in ws.inventory.node_groups if g.roce_gid_index is not None]
        wanted = sorted({d.value for d in declared})
        for env, var in scope.nccl_assignments(ws):
            if var.key != "NCCL_IB_GID_INDEX" or var.known is None or var.conditional:
                continue
            n = int_value(var.known)
            if n is None or n == -1:
                continue
            if wanted:
                if n in wanted:
                    continue
                fix = value_fix(var, str(wanted[0]), ws, f"write {wanted[0]}", safe=False) if len(wanted) == 1 else None
                yield self.finding(
                    f"NCCL_IB_GID_INDEX={var.known}, but the inventory's RoCE v2 GID index is "
                    f"{'/'.join(map(str, wanted))}", var.span, key=var.key, fix=fix,
                    related=(Related(declared[0].span, f"roce_gid_index: {declared[0].value}"),))
            elif n in (0, 1):
                yield self.finding(
                    f"NCCL_IB_GID_INDEX={var.known} on RoCE: in the standard mlx5 GID table 0 and 1 are the "
                    f"RoCE v1 and link-local entries; use the RoCE v2 IPv4 index (show_gids), or leave it unset "
                    f"on NCCL >= 2.21", var.span, key=var.key, severity=Severity.WARNING)
        version = target_version(ws)
        if version is None or not before(version, AUTO_SINCE):
            return
        for anchor, group in scope.launch_groups(ws):
            if scope.incomplete(group) or not scope.configures_ib(group) or any(v.key == "NCCL_IB_GID_INDEX" for e in group for v in e.variables):
                continue
            rel = f"NCCL {'.'.join(map(str, version))}"
            msg = (f"NCCL_IB_GID_INDEX is not set, and {rel} then uses GID 0 (automatic RoCE v2 selection came "
                   f"in 2.21)")
            fix = None
            related = ()
            if len(wanted) == 1:
                msg += f"; the inventory's RoCE v2 index is {wanted[0]}"
                fix = add_line(anchor, "NCCL_IB_GID_INDEX", str(wanted[0]), ws,
                               f"set NCCL_IB_GID_INDEX={wanted[0]}", safe=False)
                related = (Related(declared[0].span, f"roce_gid_index: {wanted[0]}"),)
            yield self.finding(msg, anchor.span, key="NCCL_IB_GID_INDEX:unset", fix=fix, related=related)
