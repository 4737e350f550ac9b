from __future__ import annotations

from netlint.fabric import formulas as F
from netlint.findings import Severity
from netlint.models.job import training_jobs
from netlint.rules.base import Rule
from netlint.rules.job.common import key


class PipelineBubble(Rule):
    """A pipeline bubble above the threshold.

    **What**: with PP stages, m micro-batches per step (global batch / (micro batch × DP)) and v virtual
    stages, the idle share of each step, (p-1)/(v·m + p-1), is above ``max_bubble`` (default 0.25).
    The message gives both definitions: share of the step's wall time, and Narayanan's "bubble time
    fraction" (p-1)/(v·m) relative to ideal compute time.

    **Why**: every pipeline stage idles while the pipeline fills and drains (Narayanan §2.2.1-2.2.2). PP=8
    with 10 micro-batches idles 41% of the step (70% of ideal compute time). Needs no inventory.

    Not reported for an entry point that runs no training step: an evaluation
    (``tasks/eval_harness/evaluate.py``, ``eval*.py``), which forwards batches only and sets its own
    micro-batch count; a checkpoint converter (``tools/hf2megads_weight_converter.py``, ``convert_*.py``)
    or a text generator (``tools/generate_samples_gpt.py``), which build the model and save or sample.

    **Bad**: PP 16 with 8 micro-batches **Good**: m ≥ 4·(p-1), or interleaving (VPP)

    **Options**: ``[tool.netlint.rules.FAB505] max_bubble = 0.25``.

    **Source**: Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters
    Using Megatron-LM", SC'21 (arXiv:2104.04473), §2.2.1 (bubble time fraction (p-1)/m) and §2.2.2
    (interleaved: (1/v)·(p-1)/m); Llama Team, "The Llama 3 Herd of Models" (arXiv:2407.21783),
    §3.3.2 ((PP-1)/(V·M)); the share of the step is (p-1)/(v·m + p-1) (e.g. p=4, m=8, v=2: 18.75 %
    of the ideal time, 15.8 % of the step).
    """

    code = "FAB505"
    name = "pipeline-bubble"
    severity = Severity.WARNING
    summary = "Pipeline bubble above the threshold"

    def check(self, ws):
        limit = float(ws.config.rule_options(self.code).get("max_bubble", 0.25))
        for job in training_jobs(ws):
            p, v = job.int("pp"), job.int("vpp") or 1
            g, b, dp = job.int("global_batch"), job.int("micro_batch"), job.int("dp")
            if p is None or p <= 1 or None in (g, b, dp) or not b * dp or g % (b * dp):
                continue
            if min(g, b, dp, v) < 1:
                continue  # no micro-batch to pipeline: a size of 0 stops the framework first
            if not job.steps:
                continue  # no training step: an evaluation, a checkpoint converter, a text generator
            m = g // (b * dp)
            wall = F.bubble_wall(p, m, v)
            if wall <= limit:
                continue
            ideal = F.bubble_ideal(p, m, v)
            yield self.finding(
                f"pipeline bubble {wall:.0%} of each step (PP={p}, {m} micro-batches, VPP={v}; "
                f"{ideal:.0%} of ideal compute time by Narayanan's (p-1)/(v·m)), above {limit:.0%}",
                job.span_of("pp"), key=key(job, "bubble"))
