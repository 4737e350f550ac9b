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
    driver feature or plugin becomes an init failure instead of a fallback.

    Bad:  `NCCL_MNNVL_ENABLE=1` on nodes without multi-node NVLink
    Good: unset (auto), or set only where the feature is known to exist

    Fix: none automatic.

    Source: research/nccl.md §9 ("NCCL will fail init" cases), M31 (DOC; Azure hopper.conf), M32
    (DOC NCCL_IGNORE_COLLNET_MISMATCH); nccl-env.tsv `allowed` (1 = force, fail if unavailable).
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
