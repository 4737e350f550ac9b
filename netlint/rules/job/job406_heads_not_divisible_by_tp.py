from __future__ import annotations

from netlint.findings import Severity
from netlint.rules.base import Rule
from netlint.rules.job.common import jobs, key, related


class HeadsNotDivisibleByTp(Rule):
    """Attention heads (or query groups) do not split over the tensor-parallel ranks.

    **What**: ``num_attention_heads % TP != 0``; with GQA, ``num_query_groups`` neither a multiple nor a
    divisor of TP; Megatron-DeepSpeed Ulysses: heads not divisible by ``--ds-sequence-parallel-size``.

    **Why**: "num_attention_heads ({}) must be a multiple of tensor_model_parallel_size ({})" and
    "num_query_groups (…) must be a multiple or divisor of tensor_model_parallel_size (…)"
    (transformer_config.py L1446-1468); DeepSpeed "Number of heads ({h}) must be divisible by the sequence
    parallel size ({sp})!" (sequence/layer.py L34). The model cannot be built.

    **Bad**: ``--num-attention-heads 96 --tensor-model-parallel-size 16`` (96 % 16 = 0 is fine; 40 heads
    on TP=16 is not) **Good**: TP dividing the head count

    **Source**: NVIDIA/Megatron-LM@d98e8a64 megatron/core/transformer/transformer_config.py L1446-1468;
    microsoft/DeepSpeed@38327e07 deepspeed/sequence/layer.py L34, L50, docs/_tutorials/ds-sequence.md L79;
    microsoft/Megatron-DeepSpeed@f4157be megatron/arguments.py L974 (``--ds-sequence-parallel-size``).
    """

    code = "JOB406"
    name = "heads-not-divisible"
    severity = Severity.ERROR
    summary = "Attention heads and query groups must split over TP (and Ulysses SP)"

    def check(self, ws):
        for job in jobs(ws, "megatron", "megatron-deepspeed", "nemo", "gpt-neox"):
            heads, tp = job.int("heads"), job.int("tp")
            if heads is None or tp is None:
                continue
            if tp > 1 and heads % tp:
                yield self.finding(f"{heads} attention heads are not a multiple of TP={tp}", job.span_of("heads"),
                                   key=key(job, "heads-tp"), related=related((job.tp, "TP")))
            g = job.int("query_groups")
            if g is not None and "query_groups" not in job.defaulted and tp > 1 and g % tp and tp % g:
                yield self.finding(f"{g} query groups are neither a multiple nor a divisor of TP={tp}",
                                   job.span_of("query_groups"), key=key(job, "groups-tp"),
                                   related=related((job.tp, "TP")))
            sp = job.int("ds_sp")
            if job.framework == "megatron-deepspeed" and sp and sp > 1 and heads % sp:
                yield self.finding(f"{heads} attention heads are not divisible by the Ulysses sequence-parallel "
                                   f"size {sp}", job.span_of("ds_sp"), key=key(job, "heads-sp"))
