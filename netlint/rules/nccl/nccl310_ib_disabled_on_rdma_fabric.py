from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.nccl.fixes import value_fix
from netlint.rules.base import Rule
from netlint.rules.nccl._common import ivalue, settings, transport


class IbDisabledOnRdmaFabric(Rule):
    """NCCL's RDMA transport switched off on an InfiniBand or RoCE fabric.

    What: `NCCL_IB_DISABLE` set to a non-zero integer, or `NCCL_NET=Socket`, while the inventory's
    `fabric.transport` is `infiniband` or `roce`. Needs the inventory.

    Why: inter-node traffic then runs over TCP sockets: bus bandwidth drops to ~5 GB/s instead of
    25-50 GB/s per NIC and the log only says "NET/Socket : Using …". It is usually a debugging
    workaround left in place.

    Bad:  `export NCCL_IB_DISABLE=1` (inventory `fabric: {transport: roce}`)
    Good: no `NCCL_IB_DISABLE`; to restrict devices use `NCCL_IB_HCA`.

    Fix: `NCCL_IB_DISABLE=0` (unsafe: changes the transport the job uses).

    Source: NCCL User Guide, Environment Variables: NCCL_IB_DISABLE; NVIDIA/nccl@5067397c (2.30.7)
    `src/transport/net_ib/init.cc` L27, L291 (any non-zero value disables the IB transport);
    areal-project/AReaL#639 (socket fallback 4-5× slower); NVIDIA/nccl-tests#188.
    """

    code = "NCCL310"
    name = "ib-disabled-on-rdma-fabric"
    summary = "NCCL_IB_DISABLE / NCCL_NET=Socket on an InfiniBand or RoCE fabric"
    severity = Severity.ERROR
    tags = ("nccl", "inventory")

    def check(self, ws) -> Iterator[Finding]:
        fabric = transport(ws)
        if fabric not in ("infiniband", "roce"):
            return
        rel = (Related(ws.inventory.fabric.transport.span, f"the inventory's fabric is {fabric}"),)
        for env, var in settings(ws, "NCCL_IB_DISABLE"):
            n = ivalue(var)
            if n:
                yield self.finding(
                    f"NCCL_IB_DISABLE={var.known} turns off NCCL's IB/RoCE transport on a {fabric} fabric: "
                    f"inter-node traffic falls back to TCP sockets", var.span, key=var.key, related=rel,
                    fix=value_fix(var, "0", ws, "write NCCL_IB_DISABLE=0", safe=False))
        for env, var in settings(ws, "NCCL_NET"):
            if var.known.strip().lower() == "socket":
                yield self.finding(
                    f"NCCL_NET={var.known} forces TCP sockets on a {fabric} fabric: the RDMA NICs carry no "
                    f"NCCL traffic", var.span, key=var.key, related=rel)
