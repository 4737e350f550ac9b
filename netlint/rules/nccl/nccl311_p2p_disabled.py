from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Severity
from netlint.rules.base import Rule
from netlint.rules.nccl._common import ivalue, settings


class P2pDisabled(Rule):
    """`NCCL_P2P_DISABLE=1`: GPU peer-to-peer (NVLink/PCIe) off.

    What: the variable is set to 1 (only the value 1 disables).

    Why: intra-node traffic then goes through host shared memory instead of NVLink/NVSwitch, a large
    drop in all-reduce bandwidth. NVIDIA lists it among the debugging variables that "should not be
    used in production"; it is legitimate only for GPUs without working P2P (consumer cards, a
    broken IOMMU or VM setup), where `NCCL_P2P_LEVEL` is the finer tool.

    Bad:  `export NCCL_P2P_DISABLE=1`
    Good: unset, or `NCCL_P2P_LEVEL=PXB` to limit P2P to some paths.

    Fix: remove the line (no automatic fix: it changes the run).

    Source: NCCL User Guide, Environment Variables, "Debugging" section (NCCL_P2P_DISABLE; these
    variables "should not be used in production"); NVIDIA/nccl@5067397c (2.30.7)
    `src/graph/paths.cc` L247-251 (`NCCL_P2P_DISABLE=1` sets the P2P level to LOC, other values are
    ignored); NVIDIA/nccl#428; tinygrad/open-gpu-kernel-modules#17.
    """

    code = "NCCL311"
    name = "p2p-disabled"
    summary = "NCCL_P2P_DISABLE=1 turns off NVLink/PCIe peer-to-peer"
    severity = Severity.WARNING
    tags = ("nccl",)

    def check(self, ws) -> Iterator[Finding]:
        for env, var in settings(ws, "NCCL_P2P_DISABLE"):
            if ivalue(var) == 1:
                yield self.finding("NCCL_P2P_DISABLE=1 turns off GPU peer-to-peer: intra-node traffic goes "
                                   "through host memory instead of NVLink (a debugging setting)",
                                   var.span, key=var.key)
