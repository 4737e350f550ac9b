from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Severity
from netlint.nccl.fixes import value_fix
from netlint.rules.base import Rule
from netlint.rules.nccl._common import env_value, settings

VERBOSE = ("INFO", "TRACE")


class DebugLogging(Rule):
    """NCCL debug logging left on: `NCCL_DEBUG=INFO`/`TRACE`, `NCCL_DEBUG_SUBSYS=ALL`.

    What: `NCCL_DEBUG` is `INFO` or `TRACE`; `NCCL_DEBUG_SUBSYS=ALL` is reported too when the same env
    logs at INFO/TRACE (without it the subsystem list has nothing to print).

    Why: every rank logs its topology, channels and connections: gigabytes per run at scale
    (10-12 GB seen) and a slower start. Keep it for debugging sessions: a file whose name says it is
    for debugging (`values-debug.yaml`, `debug.env`) is not reported.

    Bad:  `export NCCL_DEBUG=INFO`
    Good: `export NCCL_DEBUG=WARN`

    Fix: `NCCL_DEBUG=WARN` (unsafe: the logs of a run change).

    Source: NCCL User Guide, Environment Variables: NCCL_DEBUG, NCCL_DEBUG_SUBSYS;
    NVIDIA/nccl@5067397c (2.30.7) `src/debug.cc` L45-78 (levels; subsystems, default
    INIT,BOOTSTRAP,ENV); goodfire-ai/spd#889 (10-12 GB of logs per run); NVIDIA/nccl#1271.
    """

    code = "NCCL314"
    name = "debug-logging"
    summary = "NCCL_DEBUG=INFO/TRACE (debug logging) in a job environment"
    severity = Severity.WARNING
    tags = ("nccl",)

    def check(self, ws) -> Iterator[Finding]:
        for env, var in settings(ws, "NCCL_DEBUG"):
            if _for_debugging(var.file):
                continue
            level = var.known.strip().upper()
            if level in VERBOSE:
                yield self.finding(f"NCCL_DEBUG={var.known} logs every rank's setup at {level} level; use WARN "
                                   f"outside debugging", var.span, key=var.key,
                                   fix=value_fix(var, "WARN", ws, "write NCCL_DEBUG=WARN", safe=False))
        for env, var in settings(ws, "NCCL_DEBUG_SUBSYS"):
            if _for_debugging(var.file):
                continue
            text = var.known.strip().upper()
            level = (env_value(env, "NCCL_DEBUG") or "").strip().upper()
            if not text.startswith("^") and "ALL" in [t.strip() for t in text.split(",")] and level in VERBOSE:
                yield self.finding("NCCL_DEBUG_SUBSYS=ALL with NCCL_DEBUG at INFO/TRACE logs every subsystem",
                                   var.span, key=var.key)


def _for_debugging(path: str) -> bool:
    """A file named for debugging (Azure/aks-rdma-infiniband's `values-debug.yaml` overlay)."""
    return "debug" in path.rsplit("/", 1)[-1].lower()

