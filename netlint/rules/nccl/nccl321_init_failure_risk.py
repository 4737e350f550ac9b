from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Severity
from netlint.rules.base import Rule
from netlint.rules.nccl._common import ivalue, settings

# variable → (value that forces the feature, what happens where it is unavailable)
FORCED = {
    "NCCL_IB_PCI_RELAXED_ORDERING": (1, "forces PCIe relaxed ordering: init fails where it is unavailable; "
                                        "2 (the default) uses it when available"),
    "NCCL_MNNVL_ENABLE": (1, "forces multi-node NVLink: init fails where it is not supported; 2 (the "
                             "default) enables it when available"),
    "NCCL_COLLNET_ENABLE": (1, "enables CollNet, which needs a CollNet/SHARP network plugin and "
                               "matching devices on every node; without them it is unused or init fails"),
}


class InitFailureRisk(Rule):
    """A setting that forces an optional feature, so NCCL fails where the feature is missing.

    What: `NCCL_IB_PCI_RELAXED_ORDERING=1`, `NCCL_MNNVL_ENABLE=1`, `NCCL_COLLNET_ENABLE=1`. Each is
    right on the platform it was written for (Azure VMs need relaxed ordering forced; SHARP
    clusters enable CollNet), so this is info: check it when the env moves to other nodes.

    Why: unlike most knobs, these turn "use when available" into "must be available", so a missing
    driver feature or plugin can become an init failure instead of a fallback.

    Bad:  `NCCL_MNNVL_ENABLE=1` on nodes without multi-node NVLink
    Good: unset (auto), or set only where the feature is known to exist

    Fix: none automatic.

    Source: NCCL User Guide, Environment Variables: NCCL_IB_PCI_RELAXED_ORDERING, NCCL_MNNVL_ENABLE,
    NCCL_COLLNET_ENABLE, NCCL_IGNORE_COLLNET_MISMATCH; NVIDIA/nccl@5067397c (2.30.7) `src/init.cc`
    L1072-1073 (`NCCL_MNNVL_ENABLE=1` runs the MNNVL check even on one node; `src/mnnvl.cc` fails
    init when MNNVL is present but IMEX does not work), L1355-1365 (mixed CollNet device counts fail
    unless `NCCL_IGNORE_COLLNET_MISMATCH=1`); Azure/ai-infrastructure-on-azure `hopper.conf`. A
    failure for `NCCL_IB_PCI_RELAXED_ORDERING=1` is not visible in the 2.30.7 source
    (`src/transport/net_ib/init.cc` L142-149 treats 1 like 2).
    """

    code = "NCCL321"
    name = "init-failure-risk"
    summary = "Setting that forces an optional feature (fails where it is missing)"
    severity = Severity.INFO
    tags = ("nccl",)

    def check(self, ws) -> Iterator[Finding]:
        for name, (forced, what) in FORCED.items():
            for env, var in settings(ws, name):
                if ivalue(var) == forced:
                    yield self.finding(f"{name}={var.known} {what}", var.span, key=name)
