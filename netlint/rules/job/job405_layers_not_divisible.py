from __future__ import annotations

from netlint.findings import Severity
from netlint.rules.base import Rule
from netlint.rules.job.common import jobs, key, related


class LayersNotDivisible(Rule):
    """The number of layers does not split evenly over the pipeline stages (or virtual stages).

    **What**: Megatron-LM without an uneven split: ``L' % PP != 0``, where ``L' = L`` (+1 with
    ``--account-for-embedding-in-pipeline-split``, +1 with ``--account-for-loss-in-pipeline-split``);
    with ``--num-layers-per-virtual-pipeline-stage N``: ``(L'/PP) % N != 0``; NeMo: ``L/PP`` not a
    multiple of the virtual stage count.

    **Why**: "Number of layers should be divisible by the pipeline-model-parallel size" (arguments.py
    L985-998) and "number of layers per pipeline stage must be divisible number of layers per virtual
    pipeline stage" (L972-973): the job stops in ``validate_args``. Megatron-DeepSpeed partitions
    layers itself (``--pp-partition-method``) and is not checked.

    **Bad**: ``--num-layers 70 --pipeline-model-parallel-size 12`` **Good**: 72 layers, or PP 10

    **Source**: NVIDIA/Megatron-LM@d98e8a64 megatron/training/arguments.py L953-975 (virtual stages),
    L985-998 (no VPP); megatron/core/transformer/transformer_block.py L148-158, L175-178
    (``get_num_layers_to_build``: the same two asserts in megatron-core, which NeMo models build
    through); microsoft/Megatron-DeepSpeed@f4157be megatron/model/gpt_model.py L459-463 (the pipeline
    model is a DeepSpeed ``PipelineModule`` with ``partition_method='type:transformer'``).
    """

    code = "JOB405"
    name = "layers-not-divisible"
    severity = Severity.ERROR
    summary = "Layers must split evenly over pipeline (and virtual pipeline) stages"

    def check(self, ws):
        for job in jobs(ws, "megatron", "nemo"):
            L, pp = job.int("layers"), job.int("pp")
            if L is None or pp is None or pp <= 1:
                continue
            if any(f in job.args for f in ("--decoder-first-pipeline-num-layers", "--decoder-last-pipeline-num-layers",
                                            "--pipeline-model-parallel-layout", "--hybrid-override-pattern")):
                continue
            extra = sum(f in job.args for f in ("--account-for-embedding-in-pipeline-split",
                                                "--account-for-loss-in-pipeline-split"))
            Lp = L + extra
            if Lp % pp:
                yield self.finding(
                    f"{Lp} layers are not divisible by PP={pp}: Megatron stops with \"Number of layers should be "
                    f"divisible by the pipeline-model-parallel size\"", job.span_of("layers"),
                    key=key(job, "layers-pp"), related=related((job.pp, "PP")))
                continue
            per = Lp // pp
            lpv = job.int("layers_per_vstage")
            if lpv and per % lpv:
                yield self.finding(
                    f"{per} layers per pipeline stage are not divisible by {lpv} layers per virtual stage",
                    job.span_of("layers_per_vstage"), key=key(job, "layers-vpp"))
            vpp = job.int("vpp")
            if job.framework == "nemo" and vpp and per % vpp:
                yield self.finding(
                    f"{per} layers per pipeline stage are not divisible by {vpp} virtual stages", job.span_of("vpp"),
                    key=key(job, "layers-vpp"))
