from __future__ import annotations

from netlint.findings import Severity
from netlint.rules.base import Rule
from netlint.rules.job.common import jobs, key, related


class GlobalBatchNotDivisible(Rule):
    """The global batch is not a multiple of micro batch × data-parallel size.

    **What**: ``global_batch % (micro_batch · DP) != 0`` (or smaller than it), DP = world/(TP·PP·CP).

    **Why**: "global batch size ({}) is not divisible by micro batch size ({}) times data parallel size
    ({})" (num_microbatches_calculator.py L381-386) and "number of microbatches should be at least 1"
    — the job stops before the first step (unless ``--decrease-batch-size-if-needed``, which silently
    trains with a smaller batch). NeMo uses the same calculator.

    **Bad**: ``--global-batch-size 2 --micro-batch-size 1`` on DP = 4 **Good**: a multiple of 4

    **Source**: NVIDIA/Megatron-LM@d98e8a64 megatron/core/num_microbatches_calculator.py L381-391;
    NVIDIA/NeMo@8cfedd7 nemo/collections/nlp/modules/common/megatron/megatron_init.py L169-182 (NeMo
    calls megatron-core's ``init_num_microbatches_calculator`` with ``decrease_batch_size_if_needed=False``).
    """

    code = "JOB408"
    name = "global-batch-not-divisible"
    severity = Severity.ERROR
    summary = "Global batch must be a multiple of micro batch x DP"

    def check(self, ws):
        for job in jobs(ws, "megatron", "megatron-deepspeed", "nemo"):
            g, b, dp = job.int("global_batch"), job.int("micro_batch"), job.int("dp")
            if None in (g, b, dp) or "global_batch" in job.defaulted or "--decrease-batch-size-if-needed" in job.args:
                continue
            if b < 1 or dp < 1:
                continue  # no micro batch or no data-parallel rank: not a divisibility question
            if "--step-batch-size-schedule" in job.args:
                continue
            if g % (b * dp) == 0 and g >= b * dp:
                continue
            yield self.finding(
                f"global batch {g} is not divisible by micro batch {b} × DP {dp} = {b * dp}",
                job.span_of("global_batch"), key=key(job, "gbs"),
                related=related((job.micro_batch, "micro batch"), (job.world_size, "world size")))
