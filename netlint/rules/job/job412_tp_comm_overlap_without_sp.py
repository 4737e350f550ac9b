from __future__ import annotations

from netlint.findings import Severity
from netlint.rules.base import Rule
from netlint.rules.job.common import jobs, key


class TpCommOverlapWithoutSp(Rule):
    """``--tp-comm-overlap`` without ``--sequence-parallel``.

    **What**: TP communication/GEMM overlap requested on a Megatron-LM command line without sequence
    parallelism.

    **Why**: "Tensor parallel communication/GEMM overlap can happen only when sequence parallelism is
    enabled" (arguments.py L1441-1442): the job stops.

    **Bad**: ``--tp-comm-overlap`` alone **Good**: ``--tp-comm-overlap --sequence-parallel``

    **Source**: NVIDIA/Megatron-LM@d98e8a64 megatron/training/arguments.py L1441-1442.
    """

    code = "JOB412"
    name = "tp-comm-overlap-without-sp"
    severity = Severity.ERROR
    summary = "--tp-comm-overlap needs --sequence-parallel"

    def check(self, ws):
        for job in jobs(ws, "megatron"):
            if job.tp_comm_overlap is not None and job.sequence_parallel is None:
                yield self.finding("--tp-comm-overlap needs --sequence-parallel", job.tp_comm_overlap.span,
                                   key=key(job, "tpco"))
