from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.rules.base import Rule


class GdrdmaOff(Rule):
    """Network connections without GPUDirect RDMA where the inventory says the nodes have it.

    What: the inventory's node group says `gpudirect_rdma: true`, and the log's network channels
    (``Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0``) lack the ``/GDRDMA`` suffix NCCL prints
    when the NIC reads and writes GPU memory directly, or NCCL 2.24+ says ``Connected all rings, use ring
    PXN 0 GDR 0``. The message counts the connections without it
    and quotes NCCL's reason when the log has it (``GPU Direct RDMA Disabled for GPU … (distance 7 >
    4)``, NET subsystem). Socket connections never use GPUDirect and are RUN701's.

    Why: without GPUDirect RDMA every message is staged through host memory: lower bandwidth, more
    PCIe traffic and CPU load. The usual causes are a missing ``nvidia-peermem`` module (or no
    DMA-BUF support), ``NCCL_NET_GDR_LEVEL`` set too low, or a NIC under another PCIe root than its GPU.

    Bad:  ``… [send] via NET/IB/0`` with `gpudirect_rdma: true`
    Good: ``… [send] via NET/IB/0/GDRDMA``

    Fix: none automatic — load ``nvidia-peermem`` (or use a driver/kernel with DMA-BUF), check
    ``NCCL_NET_GDR_LEVEL``, or set `gpudirect_rdma: false` where the hardware has none.

    Source: NVIDIA/nccl@68b54236 (v2.23.4-1) ``src/transport/net.cc`` L194-197, L233 (the channel line,
    ``/GDRDMA`` when ``useGdr``), ``src/graph/paths.cc`` L380-412 (``ncclTopoCheckGdr``: the distance
    test, ``NCCL_NET_GDR_LEVEL``); v2.24.3-1 ``src/transport/generic.cc`` (``Connected all rings, use ring PXN
    %d GDR %d``; 5067397c L22-40, ``src/transport/net.cc`` L313); NCCL User Guide, Environment Variables, NCCL_NET_GDR_LEVEL; NVIDIA
    GPUDirect RDMA documentation (nvidia-peermem).
    """

    code = "RUN702"
    name = "gdrdma-off"
    summary = "Network connections without GPUDirect RDMA where the inventory has it"
    severity = Severity.WARNING
    tags = ("run", "nccl", "inventory")

    def check(self, ws) -> Iterator[Finding]:
        from netlint.run.intent import nccl_runs

        declared = _declared(ws)
        if declared is None:
            return
        for log, run in nccl_runs(ws):
            rdma = [c for c in run.channels if c.net.lower() != "socket"]
            off = [c for c in rdma if not c.gdr]
            rings = [f for f in run.rings_gdr if f.value is False]
            if off:
                first = off[0]
                span = first.span
                msg = (f"{len(off)} of {len(rdma)} network connections run without GPUDirect RDMA (via "
                       f"NET/{first.net}/{first.dev}, no /GDRDMA), although the inventory says gpudirect_rdma: true")
            elif rings and not any(c.net.lower() == "socket" for c in run.channels):
                span = rings[0].span
                msg = ("NCCL says its rings run without GPUDirect RDMA (GDR 0), although the inventory says "
                       "gpudirect_rdma: true")
            else:
                continue
            if run.gdr_disabled:
                msg += f"; NCCL says: {run.gdr_disabled[0].value}"
            yield self.finding(msg, span, key=f"{log.file}:gdr",
                               related=(Related(declared.span, "gpudirect_rdma: true"),))


def _declared(ws):
    inv = ws.inventory
    if inv is None:
        return None
    flags = [g.gpudirect_rdma for g in inv.node_groups if getattr(g, "gpudirect_rdma", None) is not None]
    if not flags or not all(f.value for f in flags):
        return None   # some groups without it: which node wrote a channel line is not known
    return flags[0]
