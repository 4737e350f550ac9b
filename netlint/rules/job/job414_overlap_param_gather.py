from __future__ import annotations

from netlint.findings import Severity
from netlint.rules.base import Rule
from netlint.rules.job.common import jobs, key


class OverlapParamGather(Rule):
    """``--overlap-param-gather`` without its prerequisites.

    **What**: ``--overlap-param-gather`` without ``--use-distributed-optimizer`` (or Megatron-FSDP), or
    without ``--overlap-grad-reduce``.

    **Why**: "--overlap-param-gather only supported with distributed optimizer, megatron fsdp, or
    dist_muon" and "Must use --overlap-param-gather with --overlap-grad-reduce" (arguments.py
    L1024-1029): the job stops in validate_args.

    **Bad**: ``--overlap-param-gather --overlap-grad-reduce`` alone
    **Good**: add ``--use-distributed-optimizer``

    **Source**: NVIDIA/Megatron-LM@d98e8a64 megatron/training/arguments.py L1024-1029.
    """

    code = "JOB414"
    name = "overlap-param-gather-prerequisites"
    severity = Severity.ERROR
    summary = "--overlap-param-gather needs the distributed optimizer and --overlap-grad-reduce"

    def check(self, ws):
        for job in jobs(ws, "megatron"):
            opg = job.overlap_param_gather
            if opg is None:
                continue
            if job.distributed_optimizer is None and "--use-megatron-fsdp" not in job.args:
                yield self.finding("--overlap-param-gather needs --use-distributed-optimizer", opg.span,
                                   key=key(job, "opg-distopt"))
            if job.overlap_grad_reduce is None:
                yield self.finding("--overlap-param-gather needs --overlap-grad-reduce", opg.span,
                                   key=key(job, "opg-ogr"))
