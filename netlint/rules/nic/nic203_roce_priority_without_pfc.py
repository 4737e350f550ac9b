from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related
from netlint.rules.base import Rule


class RocePriorityWithoutPfc(Rule):
    """The NIC maps the RoCE DSCP to a priority its own PFC vector leaves lossy.

    What: the RoCE DSCP is the inventory's `fabric.roce.dscp`, else the ToS the NIC forces (mlx5
    global traffic class), else `NCCL_IB_TC >> 2` of the launches (with an inventory), else the NIC
    Configuration Operator's ToS. The NIC gives that DSCP a priority: its DSCP→priority map entry
    (`mlnx_qos --dscp2prio`, NIC YAML `dscp_to_priority`), else under DSCP trust the ConnectX default
    `DSCP >> 3`. That priority must be in the NIC's PFC vector. Checked only when the fabric's RoCE
    priority is unknown (no `fabric.roce.priority`, no switch that puts the DSCP in a lossless TC):
    otherwise NIC202 (vector lacks the fabric's priority) or XC610 (the NIC maps the DSCP elsewhere)
    report it at the right place. A NIC with PFC off everywhere (lossy RoCE by design) is not judged.

    Why: the NIC sends and classifies the RoCE traffic on that priority; with PFC off on it, the NIC
    neither honours the switch's pause frames for it nor pauses the switch when its receive buffer
    fills, so RoCE drops at the host link and recovers with go-back-N retransmissions.

    Bad:  `trust: dscp`, `pfc: [4]` and `NCCL_IB_TC=106` (DSCP 26 → priority 3 by default)
    Good: `pfc: [3]`, or `dscp_to_priority: {26: 4}`

    Fix: add the priority to the PFC vector, in the file's own form. Unsafe.

    Source: NVIDIA/doroce-linux@6dc37a78 `doRoCE.sh` L151 ("DSCP=TOS>>2, PRIO=DSCP>>3"), L171 and
    L250-251 (PFC on the priority of the RoCE DSCP); Linux `drivers/net/ethernet/mellanox/mlx5/core/
    en_dcbnl.c` (gregkh/linux@0c81c68f, `mlx5e_set_dscp2prio`: the DSCP→priority table);
    NVIDIA/nccl@5067397c `src/transport/net_ib/connect.cc` L412-419 (`NCCL_IB_TC` is the ToS byte);
    IEEE 802.1Qbb.
    """

    code = "NIC203"
    name = "roce-priority-without-pfc"
    summary = "NIC maps the RoCE DSCP to a priority without PFC"
    tags = ("nic",)

    def check(self, ws) -> Iterator[Finding]:
        from netlint.nic import roce
        from netlint.nic.fixes import pfc_fix

        if roce.other_transport(ws):
            return
        for nic in ws.nics:
            vec = nic.pfc.value
            if vec is None or not vec.value or roce.fabric_priorities(ws, nic):
                continue
            pfc = set(vec.value)
            peers = roce.peers(ws, nic)
            for dscp, src in roce.roce_dscps(ws, nic):
                q = roce.priority_of_dscp(peers, dscp)
                if q is None or q.value in pfc:
                    continue
                how = "by default (DSCP >> 3)" if q.implied else f"({q.via})"
                origin = src.label if src is not None else f"inventory fabric.roce.dscp {dscp}"
                msg = (f"{nic.label} puts RoCE DSCP {dscp} ({origin}) on priority {q.value} {how}, but PFC is "
                       f"on {','.join(map(str, sorted(pfc)))} only: RoCE is lossy at the host link")
                related = [Related(q.span, f"DSCP {dscp} -> priority {q.value}")]
                if src is not None and src.token is not None:
                    related.append(Related(src.token.span, src.label))
                fix = pfc_fix(ws, nic, pfc | {q.value}, f"PFC on priority {q.value} too")
                if fix is None and nic.format == "mlnx_qos":
                    on = pfc | {q.value}
                    msg += f"; run mlnx_qos -i <if> --pfc {','.join('1' if i in on else '0' for i in range(8))}"
                yield self.finding(msg, vec.span, key=f"{nic.name}:pfc:dscp{dscp}", fix=fix, related=related)
