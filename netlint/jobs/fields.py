"""Megatron arguments whose meaning depends on the framework or its version, and the defaults each
framework fills (what :mod:`netlint.jobs.build`'s flat flag tables cannot say).

Sources (``repo@commit path Lnn``):

* Megatron-LM v1 (NVIDIA/Megatron-LM@03d2880 tag v1.0 megatron/arguments.py L155-158, L280-281):
  ``--batch-size`` is the per-GPU batch and ``--model-parallel-size`` the tensor-parallel size; both
  were renamed on 2020-12-19 (9019bbf4) and the entry ``pretrain_gpt2.py`` became ``pretrain_gpt.py``
  on 2021-01-11 (152aab30). DeepSpeedExamples' ``Megatron-LM-v1.1.5-*`` forks keep the v1 spellings.
* Megatron-DeepSpeed (microsoft/Megatron-DeepSpeed@f4157be megatron/arguments.py L608-615):
  ``--num-experts`` is ``nargs='+'`` (one count per MoE layer, default ``[1]``: dense), ``--topk``
  default 1, ``--expert-interval`` default 2, ``--num-key-value-heads`` the KV heads (GQA, L444-449).
* Megatron-LM HEAD (NVIDIA/Megatron-LM@d98e8a6 megatron/training/arguments.py): ``--num-experts 0``
  means none (L1647-1648), ``--moe-ffn-hidden-size`` defaults to the FFN size (L1650-1652),
  ``--kv-channels`` to hidden / heads (L1331-1333), ``--moe-layer-freq`` default 1 (L3520),
  MLA ranks ``--kv-lora-rank 32 --qk-head-dim 128 --qk-pos-emb-head-dim 64 --v-head-dim 128``
  (L3546-3557); TransformerConfig ``moe_router_topk = 2`` (transformer_config.py L760), also what
  NeMo builds its models with.
* gpt-neox (EleutherAI/gpt-neox@ea7aefd megatron/neox_arguments/neox_args.py L1625): ``moe_top_k`` 1.
* Megatron-LM@d98e8a6 defaults the fabric model needs: ``--position-embedding-type learned_absolute``
  (arguments.py L2397), ``--cp-comm-type p2p`` (L3221), ``moe_token_dispatcher_type = "allgather"``
  (core/transformer/transformer_config.py L891; NeMo builds the same TransformerConfig).
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from netlint.jobs.values import as_int, typed
from netlint.shell import Unknown

if TYPE_CHECKING:
    from netlint.models.job import Arg, TrainingJob

V1_ENTRIES = ("pretrain_gpt2.py",)
# Experts each token is routed to, when MoE is on and the job does not say.
TOPK_DEFAULT = {"megatron": 2, "nemo": 2, "megatron-deepspeed": 1, "gpt-neox": 1}
MOE_LAYER_FREQ_DEFAULT = {"megatron": 1, "nemo": 1, "megatron-deepspeed": 2}
MLA_DEFAULTS = (("kv_lora_rank", 32), ("qk_head_dim", 128), ("qk_pos_emb_head_dim", 64), ("v_head_dim", 128))
# Megatron string arguments the fabric model reads (arguments.py L2397 --position-embedding-type, L3221
# --cp-comm-type, nargs='+': the first layer's type; TransformerConfig moe_token_dispatcher_type L891 and
# moe_dispatch_fwd_dtype L997 through ArgumentGroupFactory).
STR_ARGS = (("position_embedding", "--position-embedding-type"), ("moe_dispatcher", "--moe-token-dispatcher-type"),
            ("moe_dispatch_dtype", "--moe-dispatch-fwd-dtype"), ("cp_comm_type", "--cp-comm-type"))


def megatron_v1(job: "TrainingJob") -> bool:
    """The launch runs a Megatron-LM v1 entry (``pretrain_gpt2.py``) without v2's
    ``--micro-batch-size``: ``--batch-size`` and ``--model-parallel-size`` are its current spellings."""
    if "--micro-batch-size" in job.args:
        return False
    entry = getattr(job, "entry", None)
    words = [entry] if entry is not None else (job.launch.argv if job.launch is not None else [])
    return any(isinstance(w.value, str) and posixpath.basename(w.value) in V1_ENTRIES for w in words)


def _ints(job: "TrainingJob", field: str, arg: "Arg") -> list | None:
    """The values of ``arg`` as located ints; None (and ``job.unknown[field]``) when one is unknown."""
    out = []
    for v in arg.values:
        if isinstance(v.value, Unknown):
            job.unknown[field] = v.value
            return None
        n = as_int(v)
        if n is None:
            return None
        out.append(n)
    return out


def fill_extra(job: "TrainingJob", last: dict[str, "Arg"]) -> None:
    from netlint.jobs.build import _val

    if megatron_v1(job):
        if job.micro_batch is None:
            _val(job, last, "micro_batch", "--batch-size")
        if job.tp is None:
            _val(job, last, "tp", "--model-parallel-size")
    mds = job.framework == "megatron-deepspeed"
    if mds and job.query_groups is None and "--num-key-value-heads" in last:
        _val(job, last, "query_groups", "--num-key-value-heads")
        if job.query_groups is not None:
            job.group_query_attention = typed(last["--num-key-value-heads"].flag, True)
    a = last.get("--num-experts")
    if a is not None and a.values:
        counts = _ints(job, "experts", a)
        if counts:
            if mds:
                job.experts_per_layer = counts
                job.experts = max(counts, key=lambda s: s.value)
            elif counts[0].value > 0:
                job.experts = counts[0]
    freq = last.get("--expert-interval" if mds else "--moe-layer-freq")
    if freq is not None and freq.value is not None:
        if isinstance(freq.value.value, Unknown):
            job.unknown["moe_layer_freq"] = freq.value.value
        else:
            job.moe_layer_freq = as_int(freq.value) or freq.value
    a = last.get("--rampup-batch-size")
    if a is not None and a.values:
        job.rampup_batch = _ints(job, "rampup_batch", a) or []
    for field, flag in STR_ARGS:
        a = last.get(flag)
        if a is None or a.value is None:
            continue
        if isinstance(a.value.value, Unknown):
            job.unknown[field] = a.value.value
        elif isinstance(a.value.value, str):
            setattr(job, field, a.value)
    if job.moe_dispatcher is None and "--moe-enable-deepep" in last:
        # transformer_config.py L1743-1748: the deprecated flag selects the flex dispatcher with DeepEP
        job.moe_dispatcher = typed(last["--moe-enable-deepep"].flag, "flex")


def _default(job: "TrainingJob", field: str, value, at) -> None:
    if getattr(job, field) is None and field not in job.unknown and at is not None:
        setattr(job, field, typed(at, value))
        job.defaulted.add(field)


def derive_extra(job: "TrainingJob") -> None:
    """Framework defaults for the fields above (after build's own defaults: ffn is known by now)."""
    fw = job.framework
    h, n = job.int("hidden"), job.int("heads")
    if fw != "torchtitan" and h and n and h % n == 0:
        _default(job, "kv_channels", h // n, job.heads)
    e = job.int("experts")
    moe = e is not None and (e > 1 if fw in ("megatron-deepspeed", "gpt-neox") else e > 0)
    if moe:
        if fw in TOPK_DEFAULT:
            _default(job, "topk", TOPK_DEFAULT[fw], job.experts)
        if fw in ("megatron", "nemo", "megatron-deepspeed"):
            _default(job, "moe_ffn", job.int("ffn"), job.ffn if job.int("ffn") else None)
        if fw in MOE_LAYER_FREQ_DEFAULT:
            _default(job, "moe_layer_freq", MOE_LAYER_FREQ_DEFAULT[fw], job.experts)
    if fw == "megatron" and job.flag("mla"):
        for field, value in MLA_DEFAULTS:
            _default(job, field, value, job.mla)
    if fw == "megatron":
        _default(job, "position_embedding", "learned_absolute", job.hidden)   # arguments.py L2397
    if moe and fw in ("megatron", "nemo"):
        _default(job, "moe_dispatcher", "allgather", job.experts)             # transformer_config.py L891
    if fw in ("megatron", "nemo") and (job.int("cp") or 1) > 1:
        _default(job, "cp_comm_type", "p2p", job.cp)                          # arguments.py L3221
