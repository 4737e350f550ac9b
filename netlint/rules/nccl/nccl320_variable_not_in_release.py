from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Severity
from netlint.nccl import scope
from netlint.nccl.registry import registry, target_version
from netlint.rules.base import Rule


def _fmt(v) -> str:
    return ".".join(str(x) for x in v)


class VariableNotInRelease(Rule):
    """A current NCCL variable that the release the repo runs does not read yet (or any more).

    What: only with the `nccl-version` setting: the variable's first release is newer than that
    version (`NCCL_MIN_CTAS` needs 2.17, `NCCL_IB_ADDR_RANGE` 2.21), or the variable left before it
    (`NCCL_NET_GDR_MLOPART` is absent from 2.32.3). Names that were removed long ago are NCCL307.

    Why: NCCL ignores variables it does not know; the setting silently does nothing on that cluster.

    Bad:  `NCCL_MIN_CTAS=16` with `nccl-version: "2.16.5"`
    Good: `NCCL_MIN_NCHANNELS=16` on 2.16, or upgrade NCCL

    Fix: none automatic; use the older name or upgrade NCCL.

    Source: NCCL User Guide, Environment Variables ("since" versions); NVIDIA/nccl release tags
    v1.2.1 … v2.30.7-1, first release that reads a name (e.g. `NCCL_MIN_CTAS` from v2.17.1-1,
    `NCCL_IB_ADDR_RANGE` from v2.21.5-1); libnccl.so.2 of PyPI `nvidia-nccl-cu12==2.32.3`
    (`NCCL_NET_GDR_MLOPART` absent, read in NVIDIA/nccl@5067397c (2.30.7) `src/graph/paths.cc`
    L466); netlint's registry `netlint/data/nccl-env.tsv` (`since_deprecated`).
    """

    code = "NCCL320"
    name = "variable-not-in-release"
    summary = "NCCL variable the configured NCCL release does not read"
    severity = Severity.WARNING
    tags = ("nccl",)

    def check(self, ws) -> Iterator[Finding]:
        version = target_version(ws)
        if version is None:
            return
        reg = registry()
        for env, var in scope.nccl_assignments(ws):
            info = reg.get(var.key)
            if info is None or info.status not in ("active", "deprecated") or info.read_by(version):
                continue
            rel = _fmt(version)
            if info.first is not None and version[:len(info.first)] < info.first:
                msg = f"{var.key} is read from NCCL {_fmt(info.first)} on; NCCL {rel} ignores it"
            else:
                msg = f"{var.key} is not read by NCCL {rel} ({info.since_deprecated})"
            yield self.finding(msg, var.name.span, key=var.key)
