from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Severity
from netlint.rules.base import Rule
from netlint.rules.nccl._common import ivalue, settings

# The releases in which NCCL_MNNVL_ENABLE=1 made a multi-node job without MNNVL fail init: the
# variable appeared in 2.21.5, and 2.25.1 replaced the hard failure by a check that falls back.
FAILS_FROM, FALLS_BACK_FROM = (2, 21), (2, 25)


class InitFailureRisk(Rule):
    """`NCCL_MNNVL_ENABLE=1`: on NCCL 2.21-2.24, a job across nodes without multi-node NVLink fails init.

    What: `NCCL_MNNVL_ENABLE=1` (force) when the `nccl-version` setting is 2.21-2.24, or is not
    set. It is info: the setting is right on an NVL72-class (MNNVL) system, and the failure needs
    nodes without MNNVL.

    Why: NCCL 2.21.5-2.24.3 stop a multi-node communicator with "MNNVL is not supported on this
    system" (ncclSystemError) when `NCCL_MNNVL_ENABLE` is 1 and MNNVL is missing; the default 2
    uses MNNVL only where it is available. From 2.25.1 a missing MNNVL is a fallback with 1 too, so
    a known newer `nccl-version` is silent.

    Not reported, because the source shows no init failure: `NCCL_IB_PCI_RELAXED_ORDERING=1` (read
    exactly like the default 2 in every release that has it, 2.12.7 to 2.30.7: relaxed ordering
    is used when `ibv_reg_mr_iova2` exists, else not) and `NCCL_COLLNET_ENABLE=1` (without a
    CollNet plugin NCCL turns it off; a failed CollNet setup falls back to the network).

    Bad:  `NCCL_MNNVL_ENABLE=1` in an env used on nodes without multi-node NVLink (NCCL 2.21-2.24)
    Good: unset (2, auto), or `nccl-version` 2.25 or later

    Fix: none automatic (on an MNNVL system the setting is intended).

    Source: NVIDIA/nccl release tags v2.21.5-1 `src/init.cc` L826 (`NCCL_MNNVL_ENABLE`, default 2),
    L951-956 and v2.24.3-1 `src/init.cc` L785-791 ("MNNVL is not supported on this system",
    ncclSystemError when the value is 1 and `checkMNNVL` fails on a multi-node communicator);
    v2.25.1-1 `src/init.cc` L728-731 with `src/mnnvl.cc` L23-29 (no fabric support: success);
    NVIDIA/nccl@5067397c (2.30.7) `src/init.cc` L1070-1074, `src/mnnvl.cc` L14-60 (a missing MNNVL
    returns success; L72-90 fail only where MNNVL is present but IMEX does not work, with the default
    too on a multi-node job), `src/transport/net_ib/init.cc` L11, L141-150 and
    `src/transport/net_ib/gdaki/gin_host_gdaki.cc` L78-86 (relaxed ordering: `roMode == 1 || roMode
    == 2`, the same test since v2.12.7-1 `src/transport/net_ib.cc` L141), `src/init.cc` L1164-1167
    and L1559-1560, L1581-1582, `src/transport/coll_net.cc` L1861-1863 (CollNet off without a plugin, or after a
    failed setup); NCCL User Guide, Environment Variables: NCCL_MNNVL_ENABLE.
    """

    code = "NCCL321"
    name = "init-failure-risk"
    summary = "NCCL_MNNVL_ENABLE=1 fails init without multi-node NVLink on NCCL 2.21-2.24"
    severity = Severity.INFO
    tags = ("nccl",)

    def check(self, ws) -> Iterator[Finding]:
        from netlint.nccl.registry import before, target_version

        version = target_version(ws)
        if version is not None and (before(version, FAILS_FROM) or not before(version, FALLS_BACK_FROM)):
            return
        which = f"NCCL {'.'.join(map(str, version))}" if version else "NCCL 2.21-2.24 (2.25 and later fall back)"
        for env, var in settings(ws, "NCCL_MNNVL_ENABLE"):
            if ivalue(var) == 1:
                yield self.finding(
                    f"NCCL_MNNVL_ENABLE=1 forces multi-node NVLink: on {which} a job across nodes without it "
                    "fails init (\"MNNVL is not supported on this system\"); 2, the default, uses it where "
                    "available", var.span, key="NCCL_MNNVL_ENABLE")
