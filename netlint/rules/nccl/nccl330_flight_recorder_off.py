from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.rules.base import Rule
from netlint.rules.nccl.nccl329_c10d_hang_detection import TRUE, _first, _int


class FlightRecorderOff(Rule):
    """The PyTorch flight recorder is turned off, or asked to dump with no buffer.

    What: `TORCH_FR_BUFFER_SIZE` or `TORCH_NCCL_TRACE_BUFFER_SIZE` is set to 0 in a launch: a warning
    when the same launch asks for a dump (`TORCH_NCCL_DUMP_ON_TIMEOUT=1`, which then writes nothing), an
    info otherwise (recent PyTorch records 2000 entries by default).

    Why: when a collective hangs or times out, the flight recorder's dump is what says which rank
    stopped in which collective; with the buffer at 0 there is nothing to dump, and a production hang
    leaves no trace.

    Bad:  `TORCH_NCCL_TRACE_BUFFER_SIZE=0` with `TORCH_NCCL_DUMP_ON_TIMEOUT=1`
    Good: `TORCH_NCCL_TRACE_BUFFER_SIZE=20000` with `TORCH_NCCL_DUMP_ON_TIMEOUT=1`

    Fix: none automatic (set a buffer size, e.g. 2000, the default of recent PyTorch).

    Source: pytorch/pytorch@4c2f2809 `torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp`
    (`TORCH_NCCL_DUMP_ON_TIMEOUT` "must be set together with ... TORCH_NCCL_TRACE_BUFFER_SIZE > 0";
    `DumpPipe` returns without a buffer), `ProcessGroupNCCL.cpp` (`getCvarInt(TORCH_NCCL_TRACE_BUFFER_SIZE,
    2000)`); PyTorch docs `torch_nccl_environment_variables.md` ("Set to 0 to disable the tracebuffer and
    debugging info dump"); c10d FlightRecorder (`TORCH_FR_BUFFER_SIZE`, alias
    `TORCH_NCCL_TRACE_BUFFER_SIZE`).
    """

    code = "NCCL330"
    name = "flight-recorder-off"
    summary = "PyTorch flight recorder buffer set to 0"
    severity = Severity.WARNING
    tags = ("nccl", "pytorch")

    def check(self, ws) -> Iterator[Finding]:
        from netlint.rules.nccl._stack_context import launches, once

        yield from once(f for env in launches(ws) for f in self._judge(env))

    def _judge(self, env) -> Iterator[Finding]:
        buf = _first(env, "TORCH_FR_BUFFER_SIZE", "TORCH_NCCL_TRACE_BUFFER_SIZE")
        if buf is None or _int(buf.known) != 0:
            return
        dump = _first(env, "TORCH_NCCL_DUMP_ON_TIMEOUT")
        if dump is not None and dump.known.strip().lower() in TRUE:
            yield self.finding(
                f"{buf.key}=0 turns the flight recorder off, but TORCH_NCCL_DUMP_ON_TIMEOUT=1 asks for its "
                f"dump: a timeout writes nothing", buf.span, key=buf.key,
                related=(Related(dump.span, "TORCH_NCCL_DUMP_ON_TIMEOUT=1"),))
        else:
            yield self.finding(
                f"{buf.key}=0 turns the flight recorder off: a hung collective leaves no record of which rank "
                f"stopped where", buf.span, key=buf.key, severity=Severity.INFO)
