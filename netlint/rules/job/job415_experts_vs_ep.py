from __future__ import annotations

from netlint.findings import Severity
from netlint.rules.base import Rule
from netlint.rules.job.common import jobs, key, related


class ExpertsVsEp(Rule):
    """Expert parallelism without experts, or experts not divisible by EP.

    **What**: EP > 1 with no ``--num-experts`` / ``num_moe_experts``; or ``num_experts % EP != 0``.

    **Why**: "num_experts must be non None to use expert model parallelism" and "Number of experts should
    be a multiple of expert model parallel_size." (arguments.py L1655-1658); DeepSpeed MoE "Number of
    experts ({n}) should be divisible by expert parallel size ({ep})" (moe/layer.py L59).

    **Bad**: ``--num-experts 6 --expert-model-parallel-size 4`` **Good**: 8 experts on EP 4

    **Source**: research/jobs.md §1d #42, #43; §3b #14.
    """

    code = "JOB415"
    name = "experts-vs-ep"
    severity = Severity.ERROR
    summary = "EP needs a number of experts divisible by it"

    def check(self, ws):
        for job in jobs(ws, "megatron", "nemo", "megatron-deepspeed"):
            ep, n = job.int("ep"), job.int("experts")
            if ep is None or ep <= 1:
                continue
            if n is None and "experts" not in job.unknown:
                yield self.finding(f"EP={ep} but the model has no experts (--num-experts)", job.span_of("ep"),
                                   key=key(job, "ep-experts"))
            elif n is not None and n % ep:
                yield self.finding(f"{n} experts are not a multiple of EP={ep}", job.span_of("experts"),
                                   key=key(job, "experts-ep"), related=related((job.ep, "EP")))
