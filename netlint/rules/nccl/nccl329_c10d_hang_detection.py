from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.rules.base import Rule

TRUE = {"y", "yes", "1", "t", "true"}
FALSE = {"n", "no", "0", "f", "false"}
# The heartbeat default is 8-10 minutes; an hour without a heartbeat before the monitor acts keeps a
# stuck job's nodes busy for most of that hour.
HEARTBEAT_LIMIT = 3600


def _first(env, *names):
    """The first of ``names`` (PyTorch reads the TORCH_ name before its legacy alias) set with a known,
    unconditional value."""
    for name in names:
        var = env.get(name)
        if var is not None and var.known is not None and not var.conditional and var.exported:
            return var
    return None


def _int(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
        return None


class C10dHangDetection(Rule):
    """PyTorch c10d settings that turn a failed or stuck collective into a silent hang.

    What, in one env:
    - `TORCH_NCCL_BLOCKING_WAIT=1` together with `TORCH_NCCL_ASYNC_ERROR_HANDLING` ≠ 0: the two error
      modes exclude each other; PyTorch keeps blocking wait (the main thread blocks on every `wait()`)
      and ignores async error handling;
    - `TORCH_NCCL_ASYNC_ERROR_HANDLING=0`: the watchdog sees a timed-out or failed collective and does
      nothing (the default is 3: tear the process down);
    - `TORCH_NCCL_ENABLE_MONITORING=0`: nothing aborts the process when the watchdog itself gets stuck
      in a CUDA or NCCL call;
    - `TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC` of an hour or more (default 8 minutes).
    Legacy `NCCL_*` spellings count (PyTorch reads them after the `TORCH_` names).

    Why: a hung collective holds every node of the job while it waits; these settings remove the
    mechanisms that end such a job (or, for blocking wait, slow every step instead).

    Bad:  `TORCH_NCCL_BLOCKING_WAIT=1` with `TORCH_NCCL_ASYNC_ERROR_HANDLING=1`; `TORCH_NCCL_ENABLE_MONITORING=0`
    Good: `TORCH_NCCL_ASYNC_ERROR_HANDLING=3` (or unset), monitoring on, the default heartbeat

    Fix: none automatic (remove the setting; keep blocking wait only where code handles its exception).

    Source: pytorch/pytorch@4c2f2809 `torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp`
    (`TORCH_NCCL_ASYNC_ERROR_HANDLING` modes 0-3, `TORCH_NCCL_ENABLE_MONITORING`,
    `TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC`), `ProcessGroupNCCL.cpp` (defaults: async error handling 3,
    monitoring on, heartbeat 8 min); pytorch/pytorch#47943 and PR#47926 (blocking wait takes precedence;
    "these two are separate modes and should not both be enabled"); PyTorch docs
    `torch_nccl_environment_variables.md`.
    """

    code = "NCCL329"
    name = "c10d-hang-detection"
    summary = "PyTorch c10d error-handling settings that hide hangs"
    severity = Severity.WARNING
    tags = ("nccl", "pytorch")

    def check(self, ws) -> Iterator[Finding]:
        from netlint.rules.nccl._stack_context import launches, once

        yield from once(f for env in launches(ws) for f in self._judge(env))

    def _judge(self, env) -> Iterator[Finding]:
        blocking = _first(env, "TORCH_NCCL_BLOCKING_WAIT", "NCCL_BLOCKING_WAIT")
        aeh = _first(env, "TORCH_NCCL_ASYNC_ERROR_HANDLING", "NCCL_ASYNC_ERROR_HANDLING")
        aeh_value = _int(aeh.known) if aeh is not None else None
        if blocking is not None and blocking.known.strip().lower() in TRUE and aeh_value not in (None, 0):
            yield self.finding(
                f"{blocking.key}={blocking.known} together with {aeh.key}={aeh.known}: PyTorch uses blocking "
                f"wait only (it ignores async error handling) and blocks the CPU on every wait(); choose one",
                blocking.span, key=blocking.key, related=(Related(aeh.span, f"{aeh.key}={aeh.known}"),))
        if aeh_value == 0:
            yield self.finding(
                f"{aeh.key}=0: the watchdog sees a failed or timed-out collective and does nothing, so the job "
                f"hangs until someone kills it (default 3 tears the process down)", aeh.span, key=aeh.key)
        mon = _first(env, "TORCH_NCCL_ENABLE_MONITORING")
        if mon is not None and mon.known.strip().lower() in FALSE:
            yield self.finding(
                "TORCH_NCCL_ENABLE_MONITORING=0: nothing aborts the process when the watchdog thread is stuck in "
                "a CUDA/NCCL call, so such a hang lasts until the job is killed", mon.span, key=mon.key)
        hb = _first(env, "TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC")
        seconds = _int(hb.known) if hb is not None else None
        if seconds is not None and seconds >= HEARTBEAT_LIMIT:
            yield self.finding(
                f"TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC={hb.known}: a stuck watchdog is noticed only after "
                f"{seconds / 3600:g} h (default 8 min), while the whole job waits", hb.span, key=hb.key)

