from __future__ import annotations

from netlint.findings import Severity
from netlint.rules.base import Rule
from netlint.rules.job.common import jobs, key


class VirtualPipelineNeedsPp(Rule):
    """An interleaved (virtual) pipeline schedule with too few stages or micro-batches.

    **What**: virtual pipeline stages with PP ≤ 1 (PP ≤ 2 with ``--no-overlap-p2p-communication``), or
    fewer micro-batches per step than PP.

    **Why**: "When interleaved schedule is used, pipeline-model-parallel size should be greater than 1"
    (arguments.py L1000-1008); at the first step "The number of contiguous micro-batches in a virtual
    pipeline stage should range in [PP=…, M=…]" (schedules.py L1160-1180): M ≥ PP is required.

    **Bad**: ``--num-virtual-stages-per-pipeline-rank 2`` with PP 1 **Good**: PP ≥ 2 and M ≥ PP

    **Source**: NVIDIA/Megatron-LM@d98e8a64 megatron/training/arguments.py L1000-1009;
    megatron/core/pipeline_parallel/schedules.py L1160-1168; megatron/core/model_parallel_config.py
    L567-568 (``microbatch_group_size_per_vp_stage`` defaults to PP).
    """

    code = "JOB417"
    name = "virtual-pipeline-needs-pp"
    severity = Severity.ERROR
    summary = "Interleaved pipeline needs PP > 1 and at least PP micro-batches"

    def check(self, ws):
        for job in jobs(ws, "megatron", "nemo"):
            vpp, pp = job.int("vpp"), job.int("pp")
            if vpp is None or vpp <= 1 or pp is None:
                continue
            need = 2 if "--no-overlap-p2p-communication" in job.args else 1
            if pp <= need:
                yield self.finding(f"{vpp} virtual pipeline stages need PP > {need}, got PP={pp}", job.span_of("vpp"),
                                   key=key(job, "vpp-pp"))
                continue
            g, b, dp = job.int("global_batch"), job.int("micro_batch"), job.int("dp")
            if None not in (g, b, dp) and b * dp and g % (b * dp) == 0 and g // (b * dp) < pp:
                yield self.finding(f"{g // (b * dp)} micro-batches per step is fewer than PP={pp}: the interleaved "
                                   "schedule refuses to run", job.span_of("vpp"), key=key(job, "vpp-m"))
