from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.rules.base import Rule
from netlint.rules.nccl._common import ivalue, settings


def _no_nvls(ws):
    """(span, why) of the inventory statement that these nodes have no working NVLS, or None."""
    inv = ws.inventory
    if inv is None:
        return None
    for group in inv.node_groups:
        nvls, fm = getattr(group, "nvls", None), getattr(group, "fabric_manager", None)
        if nvls is not None and nvls.value is False:
            return nvls.span, "the inventory says NVLS does not work on these nodes (nvls: false)"
        if fm is not None and fm.value is False:
            return fm.span, "the inventory says Fabric Manager does not run (fabric_manager: false)"
    return None


class NvlsForcedWithoutSupport(Rule):
    """`NCCL_NVLS_ENABLE=1` on nodes the inventory says have no working NVLink SHARP.

    What: `NCCL_NVLS_ENABLE=1` while an inventory node group says `nvls: false` or
    `fabric_manager: false`.

    Why: the default (2) asks CUDA whether the device supports multicast and uses NVLS only then; `1`
    skips that check and declares NVLS supported. Without NVSwitch multicast (no Fabric Manager, an
    NVSwitch generation without NVLS) the multicast memory bind then fails and NCCL fails the job:
    "Failed to bind NVLink SHARP (NVLS) Multicast memory … usually caused by a system or configuration
    error in the Fabric Manager or NVSwitches".

    Bad:  `NCCL_NVLS_ENABLE=1` with `nvls: false` in the inventory
    Good: `NCCL_NVLS_ENABLE` unset (2: used where CUDA reports multicast), or `0`

    Fix: none automatic (remove the setting, or fix the Fabric Manager).

    Source: NVIDIA/nccl@5067397c (2.30.7) `src/transport/nvls.cc` L262-277 (`NCCL_NVLS_ENABLE=2` queries
    `CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED`, any other non-zero value sets `nvlsSupport = 1`) and
    L365-380 (`cuMulticastBindMem` failure: "Fail the job as NVLS support is not functional"); NCCL User
    Guide, Environment Variables: NCCL_NVLS_ENABLE.
    """

    code = "NCCL335"
    name = "nvls-forced-without-support"
    summary = "NCCL_NVLS_ENABLE=1 on nodes without working NVLS (init fails)"
    severity = Severity.ERROR
    tags = ("nccl", "inventory")

    def check(self, ws) -> Iterator[Finding]:
        why = _no_nvls(ws)
        if why is None:
            return
        for env, var in settings(ws, "NCCL_NVLS_ENABLE"):
            if ivalue(var) not in (None, 0, 2):
                yield self.finding(
                    f"NCCL_NVLS_ENABLE={var.known} skips NCCL's multicast check and forces NVLS, but {why[1]}: the "
                    f"multicast bind fails and NCCL fails the job", var.span, key=var.key,
                    related=(Related(why[0], why[1]),))
