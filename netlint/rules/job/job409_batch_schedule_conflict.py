from __future__ import annotations

from netlint.findings import Severity
from netlint.rules.base import Rule
from netlint.rules.job.common import jobs, key, related


class BatchScheduleConflict(Rule):
    """``--step-batch-size-schedule`` together with ``--global-batch-size``.

    **What**: both arguments given to Megatron-LM.

    **Why**: "Cannot specify both --step-batch-size-schedule and --global-batch-size" (ValueError,
    arguments.py L698-701). Megatron-LM's own ``examples/gpt3/train_gpt3_175b_distributed.sh`` passes
    both.

    **Bad**: ``--global-batch-size 1536 --step-batch-size-schedule "0:16 … 12B:1536"``
    **Good**: only the schedule (its last entry is the final batch)

    **Source**: NVIDIA/Megatron-LM@d98e8a64 megatron/training/arguments.py L695-701;
    examples/gpt3/train_gpt3_175b_distributed.sh L39-40 (same commit).
    """

    code = "JOB409"
    name = "batch-schedule-conflict"
    severity = Severity.ERROR
    summary = "--step-batch-size-schedule excludes --global-batch-size"

    def check(self, ws):
        for job in jobs(ws, "megatron"):
            a, b = job.args.get("--step-batch-size-schedule"), job.args.get("--global-batch-size")
            if a is None or b is None:
                continue
            yield self.finding("--step-batch-size-schedule and --global-batch-size cannot both be given",
                               b.flag.span, key=key(job, "schedule"), related=related((a.flag, "schedule")))
