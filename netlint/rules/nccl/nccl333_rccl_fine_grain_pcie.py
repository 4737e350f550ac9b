from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Severity
from netlint.rules.base import Rule


class RcclFineGrainPcie(Rule):
    """`HSA_FORCE_FINE_GRAIN_PCIE` set to anything but 1 for RCCL.

    What: the env sets `HSA_FORCE_FINE_GRAIN_PCIE` to a value other than exactly `1` (for example `0`
    to "turn it off" on MI300X nodes, or `true`).

    Why: RCCL checks this variable at init and, unless it is exactly `1`, warns "Missing
    HSA_FORCE_FINE_GRAIN_PCIE=1 from environment which can lead to low RCCL performance, system
    instability or hang": peer-to-peer and network buffers need fine-grained PCIe memory. ROCm's RCCL
    usage tips name it as the setting that enables peer-to-peer transport.

    Bad:  `export HSA_FORCE_FINE_GRAIN_PCIE=0`
    Good: `export HSA_FORCE_FINE_GRAIN_PCIE=1`

    Fix: write 1 (unsafe: only for ROCm nodes, which the env cannot prove).

    Source: ROCm/rccl@0cbce2a7 `src/init.cc` L165-168 (`strcmp(env, "1") != 0` → the warning); ROCm/rccl#1026
    (MI250X P2P: the same warning on a system that hung); ROCm RCCL documentation, "RCCL usage tips":
    Enabling peer-to-peer transport.
    """

    code = "NCCL333"
    name = "rccl-fine-grain-pcie"
    summary = "HSA_FORCE_FINE_GRAIN_PCIE other than 1 (RCCL warns of hangs)"
    severity = Severity.WARNING
    tags = ("nccl", "rccl")

    def check(self, ws) -> Iterator[Finding]:
        from netlint.nccl.fixes import value_fix
        from netlint.rules.nccl._stack_context import stack_settings

        for env, var in stack_settings(ws, "HSA_FORCE_FINE_GRAIN_PCIE"):
            if var.known == "1":
                continue
            yield self.finding(
                f"HSA_FORCE_FINE_GRAIN_PCIE={var.known}: RCCL accepts only exactly 1 and otherwise warns of low "
                f"performance, system instability or hang (peer-to-peer needs fine-grained PCIe memory)",
                var.span, key=var.key, fix=value_fix(var, "1", ws, "write HSA_FORCE_FINE_GRAIN_PCIE=1"))
