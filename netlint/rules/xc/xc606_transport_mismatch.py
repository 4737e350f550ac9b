from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.nccl import scope
from netlint.nccl.registry import registry
from netlint.nccl.values import int_value
from netlint.rules.base import Rule

# RoCE-only: read only when the port's link layer is Ethernet (NCCL 2.30.7 ncclIbGetGidIndex).
ROCE_ONLY = ("NCCL_IB_GID_INDEX", "NCCL_IB_ROCE_VERSION_NUM", "NCCL_IB_ADDR_FAMILY", "NCCL_IB_ADDR_RANGE")
# Socket-transport tuning (NCCL 2.30.7 transport/net_socket.cc; NCCL User Guide).
SOCKET_ONLY = ("NCCL_NSOCKS_PERTHREAD", "NCCL_SOCKET_NTHREADS")
# IB-family names that matter even without RDMA (turning IB off is how Ethernet setups say so).
IB_NEUTRAL = ("NCCL_IB_DISABLE",)


def _sockets_forced(env) -> bool:
    ib = env.get("NCCL_IB_DISABLE")
    net = env.get("NCCL_NET")
    return bool((ib is not None and int_value(ib.known or "") not in (None, 0))
                or (net is not None and (net.known or "").strip().lower() == "socket"))


class TransportMismatch(Rule):
    """A variable for a transport the inventory's fabric does not have.

    What (needs the inventory's `fabric.transport`):
    - `ethernet` (no RDMA): `NCCL_IB_*` variables configure NCCL's IB/RoCE transport, which has no
      device to use;
    - `infiniband`: RoCE-only variables (`NCCL_IB_GID_INDEX`, `NCCL_IB_ROCE_VERSION_NUM`,
      `NCCL_IB_ADDR_FAMILY`, `NCCL_IB_ADDR_RANGE`) are read only when the port's link layer is Ethernet;
    - `infiniband`/`roce`: `NCCL_NSOCKS_PERTHREAD`/`NCCL_SOCKET_NTHREADS` tune only the Socket
      transport, unused unless the env forces sockets (`NCCL_IB_DISABLE=1`, `NCCL_NET=Socket`).
    - other stacks (EFA, GPUDirect-TCPX): `FI_EFA_*`/`OFI_NCCL_*` on a fabric that is not `efa`,
      `FI_PROVIDER=efa` without EFA or another provider on EFA, `NCCL_GPUDIRECTTCPX_*`/`NCCL_FASTRAK_*`
      off `gpudirect-tcpx(o)`, and `NCCL_IB_*` on TCPX (no RDMA; NCCL's network is the plugin);
    - `NCCL_COLLNET_ENABLE=1` where the inventory says `fabric.sharp: false` (no in-network reduction).

    Why: such settings do nothing, which usually means the env file was copied from another cluster
    and its real tuning for this fabric is missing.

    Bad:  `NCCL_IB_GID_INDEX=3` on an InfiniBand fabric
    Good: no RoCE settings on InfiniBand

    Fix: remove the line (no automatic fix).

    Source: NVIDIA/nccl@5067397c (2.30.7) `src/transport/net_ib/connect.cc` L298-330
    (`ncclIbGetGidIndex`: on an InfiniBand link layer GID 0, or the routable-FLID GID, is used and
    the RoCE variables are not read), `src/transport/net_socket.cc` L198-199
    (`NCCL_NSOCKS_PERTHREAD`, `NCCL_SOCKET_NTHREADS` are Socket-transport parameters); NCCL User
    Guide, Environment Variables: NCCL_IB_GID_INDEX, NCCL_SOCKET_NTHREADS, NCCL_NSOCKS_PERTHREAD;
    NVIDIA/nccl#438; aws/aws-ofi-nccl@2daf7d30 (the plugin reads FI_/OFI_NCCL_ settings, libfabric's
    `FI_PROVIDER` picks the provider: ofiwg/libfabric@af8ddbe9 `src/fabric.c`); google/nccl-plugin-gpudirecttcpx@4b8ea7f2
    (`NCCL_GPUDIRECTTCPX_*` read by the plugin only); NVIDIA/nccl@5067397c `src/init.cc` L1164-1167
    (without CollNet support the communicator's `collnetEnable` is reset to 0).
    """

    code = "XC606"
    name = "transport-mismatch"
    summary = "NCCL variable for a transport the fabric does not have"
    severity = Severity.WARNING
    tags = ("nccl", "inventory", "cross-file")

    def check(self, ws) -> Iterator[Finding]:
        inv = ws.inventory
        try:
            fabric = inv.fabric.transport
        except AttributeError:
            return
        kind = fabric.value
        rel = (Related(fabric.span, f"the inventory's fabric is {kind}"),)
        reg = registry()
        for env, var in scope.nccl_assignments(ws):
            name = var.key
            info = reg.get(name)
            if info is None or info.external or var.conditional:
                continue
            if kind == "ethernet" and name.startswith("NCCL_IB_") and name not in IB_NEUTRAL:
                msg = f"{name} configures NCCL's InfiniBand/RoCE transport, but the fabric is plain Ethernet (no RDMA)"
            elif kind == "infiniband" and name in ROCE_ONLY:
                msg = f"{name} is read only for RoCE (Ethernet link layer) ports; the fabric is InfiniBand"
            elif kind in ("infiniband", "roce") and name in SOCKET_ONLY and not _sockets_forced(env):
                msg = (f"{name} tunes NCCL's Socket transport, which a {kind} fabric does not use "
                       f"(unless sockets are forced)")
            else:
                continue
            yield self.finding(msg + ": it has no effect", var.name.span, key=name, related=rel)
        yield from self._stacks(ws, kind, rel)

    def _stacks(self, ws, kind: str, rel) -> Iterator[Finding]:
        """Other stacks' variables (EFA, TCPX) and NCCL's IB ones on a fabric without NCCL's IB transport."""
        from netlint.rules.xc._stack_transport import collnet_without_sharp, mismatch

        for env, var in scope.assignments(ws):
            sharp = collnet_without_sharp(ws.inventory, var.key, var.known) if not var.conditional else None
            if sharp is not None:
                yield self.finding(sharp, var.name.span, key=var.key, related=(
                    Related(ws.inventory.fabric.sharp.span, "fabric.sharp: false"),))
                continue
            if var.conditional or (var.key.startswith("NCCL_IB_") and kind in ("ethernet", "infiniband", "roce")):
                continue   # NCCL_IB_* on ethernet/IB/RoCE: judged above
            msg = mismatch(kind, var.key, var.known)
            if msg is not None:
                yield self.finding(msg, var.name.span, key=var.key, related=rel)
