"""XC606 for the other stacks: a variable of a stack the inventory's transport does not run (not a rule).

Transports (``fabric.transport``): ``efa`` runs NCCL through aws-ofi-nccl over libfabric's EFA provider;
``gpudirect-tcpx``/``gpudirect-tcpxo`` through GCP's TCPX/TCPXO plugins over plain Ethernet;
``infiniband``/``roce`` through NCCL's IB transport (or HPC-X's plugin); ``ethernet`` through sockets.
"""

from __future__ import annotations

EFA_ONLY = ("FI_EFA_", "OFI_NCCL_")
TCPX_ONLY = ("NCCL_GPUDIRECTTCPX_", "NCCL_FASTRAK_")
# NCCL_IB_* on EFA is left alone: netlint stays silent on IB settings there (tests/rules/xc/test_host_network.py)
TCPX_KINDS = ("gpudirect-tcpx", "gpudirect-tcpxo")


def mismatch(kind: str, name: str, value: str | None) -> str | None:
    """Why ``name`` does nothing (or harm) on a ``kind`` fabric, or None."""
    if name.startswith(EFA_ONLY) and kind != "efa":
        return (f"{name} configures AWS EFA (libfabric's EFA provider / aws-ofi-nccl), but the fabric is {kind}: "
                f"it has no effect")
    if name == "FI_PROVIDER" and value is not None:
        first = value.split(",")[0].strip().lower()
        if kind == "efa" and first and first != "efa" and not first.startswith("^"):
            return (f"FI_PROVIDER={value} on an EFA fabric: aws-ofi-nccl then runs over libfabric's {first} provider "
                    f"(TCP or shared memory), not EFA")
        if kind != "efa" and first == "efa":
            return f"FI_PROVIDER=efa, but the fabric is {kind}: there is no EFA device, so the plugin finds no provider"
    if name.startswith(TCPX_ONLY) and kind not in TCPX_KINDS:
        return f"{name} configures GCP's GPUDirect-TCPX/TCPXO plugin, but the fabric is {kind}: it has no effect"
    if name.startswith("NCCL_IB_") and name != "NCCL_IB_DISABLE" and kind in TCPX_KINDS:
        return (f"{name} configures NCCL's InfiniBand/RoCE transport, but {kind} has no RDMA (NCCL's network is "
                f"the TCPX plugin): it has no effect")
    return None


def collnet_without_sharp(inv, name: str, value: str | None) -> str | None:
    """``NCCL_COLLNET_ENABLE=1`` where the inventory says the fabric has no SHARP (or is not InfiniBand)."""
    if name != "NCCL_COLLNET_ENABLE" or (value or "").strip() in ("", "0"):
        return None
    try:
        sharp = inv.fabric.sharp
    except AttributeError:
        return None
    if sharp is not None and sharp.value is False:
        return ("NCCL_COLLNET_ENABLE asks for in-network reductions, but the inventory says the fabric has no SHARP "
                "(fabric.sharp: false): NCCL finds no CollNet and runs without it, so it has no effect")
    return None
