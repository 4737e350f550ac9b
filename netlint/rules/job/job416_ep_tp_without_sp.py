from __future__ import annotations

from netlint.findings import Severity
from netlint.rules.base import Rule
from netlint.rules.job.common import jobs, key


class EpTpWithoutSp(Rule):
    """Expert parallelism and tensor parallelism without sequence parallelism.

    **What**: EP > 1 and TP > 1 without ``--sequence-parallel``.

    **Why**: megatron-core warns "When using expert parallelism and tensor parallelism for training,
    sequence parallelism must be used" (model_parallel_config.py L561-565); the ``--yaml-cfg`` path
    asserts it. In training, megatron-core's ``MoELayer.forward`` raises a ValueError ("During training,
    performance may degrade if MoE and tensor parallelism are enabled without also enabling sequence
    parallelism", moe_layer.py L636-640; present since 28c8dd71, 2024-05-30, e.g. in core_v0.12.0 to
    core_v0.15.0), so such a run stops at its first MoE forward step.

    **Bad**: ``--tensor-model-parallel-size 2 --expert-model-parallel-size 4`` **Good**: add ``--sequence-parallel``

    **Source**: NVIDIA/Megatron-LM@d98e8a64 megatron/core/model_parallel_config.py L560-565,
    megatron/training/yaml_arguments.py L335-338, megatron/core/transformer/moe/moe_layer.py L636-640.
    """

    code = "JOB416"
    name = "ep-tp-without-sequence-parallel"
    severity = Severity.WARNING
    summary = "EP with TP should use sequence parallelism"

    def check(self, ws):
        for job in jobs(ws, "megatron", "nemo"):
            if (job.int("ep") or 1) > 1 and (job.int("tp") or 1) > 1 and job.sequence_parallel is None:
                yield self.finding(f"EP={job.int('ep')} with TP={job.int('tp')} needs --sequence-parallel",
                                   job.span_of("ep"), key=key(job, "ep-tp-sp"))
