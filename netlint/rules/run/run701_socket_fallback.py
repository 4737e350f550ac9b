from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.rules.base import Rule


class SocketFallback(Rule):
    """The run's NCCL fell back to TCP sockets on an RDMA fabric.

    What: the log says ``Using network Socket`` (or its network channels go ``via NET/Socket``) while
    the inventory's fabric is RDMA (`roce`, `infiniband`, `efa`) or a GPUDirect-TCPX plugin fabric.
    The message says why when the log shows it: ``NET/IB : No device found.``, a net plugin that did
    not load, ``NCCL_IB_DISABLE`` or ``NCCL_NET=Socket`` read from the environment. Without an
    inventory, a log whose IB transport found no device and then chose sockets is reported as info.
    When some processes chose sockets and others an RDMA network, the message says so: such ranks
    cannot connect to each other. A run that the log shows on one node (communicators of one node,
    or only P2P/SHM channels from one host) sent nothing over the network: info, about the setup. When
    the log shows neither (one excerpt with hosts redacted), the message says only that NCCL selected
    sockets for traffic between nodes.
    A net plugin's own warning (aws-ofi-nccl's ``NET/OFI Only EFA provider is supported``) is named as
    the cause first.

    Why: NCCL picks the first network that initialises — the plugin, then IB, then Socket — and says
    so only in its INFO log; over sockets collectives run at a fraction of the RDMA bandwidth and
    load the CPUs, and the job still "works".

    Bad:  ``NCCL INFO NET/IB : No device found.`` … ``NCCL INFO Using network Socket`` (fabric: roce)
    Good: ``NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE …`` … ``NCCL INFO Using network IB``

    Fix: none automatic — make the RDMA devices visible in the container (``/dev/infiniband``,
    ``IPC_LOCK``), load the plugin, or drop the setting that disables IB.

    Source: NVIDIA/nccl@68b54236 (v2.23.4-1) ``src/net.cc`` L600-627 (``ncclNetInit``: the first enabled
    net in plugin, IB, Socket order), ``src/init.cc`` L342 (``Using network %s``),
    ``src/transport/net_ib.cc`` L502, L642 (``NCCL_IB_DISABLE``; ``NET/IB : No device found.``),
    ``src/transport/net_socket.cc`` L62; NCCL User Guide, Troubleshooting, "Networking issues";
    aws/aws-ofi-nccl PR#280, PR#850 (plugin not loaded → silent Socket fall-back).
    """

    code = "RUN701"
    name = "socket-fallback"
    summary = "NCCL ran over TCP sockets on an RDMA fabric"
    severity = Severity.ERROR
    tags = ("run", "nccl", "inventory")

    def check(self, ws) -> Iterator[Finding]:
        from netlint.run.intent import RDMA, nccl_runs, transport, transport_span

        fabric = transport(ws)
        for log, run in nccl_runs(ws):
            socket = [n for n in run.networks if n.value.strip().lower() == "socket"]
            net = socket[0] if socket else run.network if not run.networks else None
            if net is None or net.value.strip().lower() != "socket":
                continue
            why = _why(run)
            others = sorted({n.value for n in run.networks} - {n.value for n in socket})
            if others:   # ranks that disagree cannot connect (socketFinalizeAccept: wrong type)
                why = (f"{len(socket)} of {len(run.networks)} processes chose Socket, the others "
                       f"{'/'.join(others)}" + (f"; {why}" if why else ""))
            if fabric in RDMA:
                severity, intent = None, f"the inventory's fabric is {fabric}"
                related = (Related(transport_span(ws), f"transport: {fabric}"),) if transport_span(ws) else ()
            elif fabric is None and run.ib_no_device:
                severity, intent, related = Severity.INFO, "NCCL's IB transport was tried and found no device", ()
            else:
                continue
            if _across_nodes(run):
                msg = f"NCCL used the Socket transport (TCP) although {intent}"
                if why:
                    msg += f"; the log shows {why}"
            else:   # "Using network Socket" is NCCL's choice for traffic between nodes, not proof any went
                msg = (f"NCCL selected the Socket transport (TCP) for traffic between nodes although {intent}"
                       + (f"; the log shows {why}" if why else "")
                       + "; the log does not show whether this run spanned nodes")
            if _local_only(run):  # selected, but nothing went over it: true of the setup, not of this run
                msg = (f"NCCL selected the Socket transport (TCP) although {intent}" + (f" ({why})" if why else "")
                       + "; this run is on one node and sent nothing over it, but a run across nodes with the "
                       "same setup would")
                severity = Severity.INFO
            yield self.finding(msg, net.span, key=f"{log.file}:socket", related=related, severity=severity)


def _across_nodes(run) -> bool:
    """The log shows ranks on more than one node: a communicator of several nodes, several hosts, or
    channels through the network."""
    return any(c.nnodes > 1 for c in run.comms) or len(run.hosts) > 1 or bool(run.channels)


def _local_only(run) -> bool:
    """The log shows that no rank talked to another node: every communicator is on one node, or its
    channels are all intra-node (P2P/SHM) with none through the network, from one host."""
    if run.comms:
        return all(c.nnodes == 1 for c in run.comms)
    return len(run.hosts) == 1 and not run.channels and bool(run.paths)


def _why(run) -> str:
    reasons = []
    # a net plugin's own warning is the cause when it failed (aws-ofi-nccl: "NET/OFI Only EFA provider is
    # supported"), before the IB fallback's "No device found" that follows it
    ofi = next((w for w in run.warnings if "NET/OFI" in w.value), None)
    if ofi is not None:
        reasons.append(f"'{ofi.value[:120]}'")
    for e in run.env:
        if e.name == "NCCL_IB_DISABLE" and e.value.strip() not in ("0", ""):
            reasons.append(f"NCCL_IB_DISABLE={e.value}")
            break
    for e in run.env:
        if e.name == "NCCL_NET" and e.value.strip().lower() == "socket":
            reasons.append(f"NCCL_NET={e.value}")
            break
    if run.ib_no_device:
        reasons.append("'NET/IB : No device found.'")
    from netlint.run.intent import plugin_failures

    failed = plugin_failures(run)
    if failed and not run.plugin_loaded:
        reasons.append(f"'NET/Plugin: {failed[0].value[:120]}'")
    return ", ".join(reasons)
