from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Severity
from netlint.nccl import scope
from netlint.nccl.registry import registry
from netlint.rules.base import Rule


class UndocumentedVariable(Rule):
    """An internal NCCL knob: read by NCCL but not in the NCCL User Guide.

    What: the registry marks the variable `documented: no` (found in NCCL's source or binary, absent
    from the User Guide's environment page). PyTorch and plugin names are not reported.

    Why: internal knobs can change meaning or disappear between releases without a note; a setting
    that relies on one deserves a comment and a re-check on every NCCL upgrade.

    Bad:  `NCCL_NVLS_CHUNKSIZE=524288` with no comment
    Good: a documented knob, or the internal one with a comment saying why and for which release

    Fix: none; review on upgrade.

    Source: NCCL User Guide, Environment Variables (the documented set, up to 2.30.5) against the
    names NVIDIA/nccl@5067397c (2.30.7) `src/` and libnccl.so.2 2.32.3 read: netlint's registry
    `netlint/data/nccl-env.tsv`, `documented` column.
    """

    code = "NCCL319"
    name = "undocumented-variable"
    summary = "NCCL variable that the NCCL User Guide does not document (internal knob)"
    severity = Severity.INFO
    tags = ("nccl",)

    def check(self, ws) -> Iterator[Finding]:
        reg = registry()
        for env, var in scope.nccl_assignments(ws):
            info = reg.get(var.key)
            if info is None or info.documented or info.status not in ("active", "deprecated"):
                continue
            yield self.finding(f"{var.key} is an internal NCCL knob (not in the NCCL User Guide): its meaning "
                               f"may change between releases", var.name.span, key=var.key)
