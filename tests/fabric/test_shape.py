"""Model shape, parameters and FLOPs per token (netlint.fabric.shape), each against a hand-derived case
or a published figure. Framework lines are NVIDIA/Megatron-LM@d98e8a64 unless a test says otherwise."""

from __future__ import annotations

import pytest

from netlint.fabric import shape as S
from netlint.models.job import training_jobs
from tests.conftest import lint_repo


def _job(tmp_path, script: str):
    report = lint_repo(tmp_path, {"train.sh": script})
    jobs = list(training_jobs(report.workspace))
    assert len(jobs) == 1
    return jobs[0]


def test_moe_layer_freq_int_and_patterns():
    # training.py L1024-1027: an int N makes layer i MoE when i % N == 0
    assert S.moe_pattern(2, 5) == [1, 0, 1, 0, 1]
    # arguments.py L327-350: a list expression; its length must be the number of layers
    assert S.moe_pattern("([0]*3+[1]*58)", 61).count(1) == 58
    assert S.moe_pattern("([1]*3+[0]*1)*3", 12) == [1, 1, 1, 0] * 3
    assert S.moe_pattern("[0,1]*2", 4) == [0, 1, 0, 1]
    assert S.moe_pattern("([0]*3+[1]*58)", 60) is None          # wrong length: Megatron asserts
    assert S.moe_pattern("__import__('os')", 4) is None        # never evaluated as Python
    assert S.moe_pattern("[2]*4", 4) is None                     # only 0 and 1


def test_dense_gqa_swiglu_untied_params_by_hand():
    """attention.py: QKV h×(q + 2·kv·d) and proj q×h; mlp.py: 3 matrices when gated; two norms per
    layer, a final norm; word embedding V×h and, untied, an output layer V×h; RoPE: no position table.
    L=2, h=8, heads 2 (d 4, q 8), 1 KV group (kv 4), ffn 16, V=10:
    per layer 8·(8+8) + 8·8 + 2·8 + 3·8·16 = 128 + 64 + 16 + 384 = 592; ×2 = 1184; + 160 + 8 = 1352."""
    s = S.ModelShape(layers=2, hidden=8, heads=2, seq=16, vocab=10, kv_heads=1, ffn=16, gated=True, tied=False)
    p = S.params(s)
    assert (p.total, p.activated, p.embedding, p.expert) == (1352, 1352, 160, 0)
    assert not s.classic


def test_moe_params_total_and_activated_by_hand():
    """moe_layer.py: router E×h, E routed experts, a shared expert. L=3 with pattern [0,1,1], h=4,
    heads 1 (d 4), ffn 8, expert ffn 2, shared 2, E=4, top-2, not gated, V=0 (tied), no positions.
    attention 4·(4+8) + 16 = 64, norms 8 → 72 per layer; dense MLP 2·4·8 = 64; expert 2·4·2 = 16;
    shared 16; router 16. Total: 3·72 + 64 + 2·(16 + 16) + 2·4·16 + 4 = 216+64+64+128+4 = 476;
    activated: routed experts 2 of 4 → 476 − 2·2·16 = 412."""
    s = S.ModelShape(layers=3, hidden=4, heads=1, seq=8, ffn=8, experts=4, moe_layers=2, moe_ffn=2, shared_ffn=2,
                     topk=2)
    p = S.params(s)
    assert (p.total, p.activated, p.expert) == (476, 412, 128)
    assert p.dense == 476 - 128


def test_mla_attention_params_by_hand():
    """multi_latent_attention.py L537-607: q down h×q_lora, its norm, q up q_lora×heads·(qk+rope), kv
    down h×(kv_lora+rope), its norm, kv up kv_lora×heads·(qk+v), proj heads·v×h. h=16, 2 heads,
    q_lora 4, kv_lora 2, qk 3, rope 1, v 5: 64 + 4 + 4·2·4 + 16·3 + 2 + 2·2·8 + 2·5·16 = 64+4+32+48+2+32+160."""
    s = S.ModelShape(layers=1, hidden=16, heads=2, seq=4, mla=S.Mla(4, 2, 3, 1, 5))
    assert S.attention_params(s) == 342
    s = S.ModelShape(layers=1, hidden=16, heads=2, seq=4, mla=S.Mla(None, 2, 3, 1, 5))   # one q projection
    assert S.attention_params(s) == 16 * 2 * 4 + 48 + 2 + 32 + 160


def test_flops_per_token_causal_by_hand():
    """training.py L1141-1170: 6·(h·(q+2kv) + q·h) projections, core 6·s·q (/2 causal ·2 matrices),
    L1255-1265 MLP 6·h·ffn·(2|3), L1298-1303 logits 6·h·V. h=8, heads 2, kv 1 (d 4), ffn 16 gated,
    V=10, s=16, L=2: layers 2·6·(128+64) + 6·8·16·3·2 = 2304 + 4608; attention 6·16·8·2 = 1536;
    logits 480."""
    s = S.ModelShape(layers=2, hidden=8, heads=2, seq=16, vocab=10, kv_heads=1, ffn=16, gated=True, tied=False)
    assert S.flops_per_token(s) == {"layers": 6912.0, "attention": 1536.0, "logits": 480.0}
    assert S.flops_step(s, 3) == (6912 + 1536 + 480) * 3 * 16
    # full recompute adds a forward of the layers (1/3 of 6912 + 1536); selective of the core attention
    assert S.hardware_factor(s, "full") == pytest.approx((8928 + 8448 / 3) / 8928)
    assert S.hardware_factor(s, "selective") == pytest.approx((8928 + 512) / 8928)


def test_moe_flops_count_topk_and_shared_only_on_moe_layers():
    """training.py L1255-1285: dense FFN on dense layers, topk·moe_ffn + shared on MoE layers."""
    s = S.ModelShape(layers=3, hidden=4, heads=1, seq=8, ffn=8, experts=4, moe_layers=2, moe_ffn=2, shared_ffn=2,
                     topk=2)
    mlp = 4 * (8 * 2 * 1) + 4 * (2 * 2 * 2 + 2 * 2) * 2
    assert S.flops_per_token(s)["layers"] == 6 * (3 * (4 * 12 + 16) + mlp)


DEEPSEEK_V3 = """\
#!/bin/bash
# DeepSeek-V3 (arXiv:2412.19437 §4.2: 61 layers, hidden 7168, 128 heads, q/kv LoRA 1536/512, per-head
# 128 + RoPE 64, first 3 layers dense (FFN 18432), then 1 shared + 256 routed experts of 2048, top-8,
# 4 of 8 node groups, vocabulary 129K) as a Megatron-LM launch.
torchrun --nproc_per_node 8 --nnodes 256 pretrain_gpt.py \\
    --tensor-model-parallel-size 1 --pipeline-model-parallel-size 16 --expert-model-parallel-size 64 \\
    --num-layers 61 --hidden-size 7168 --ffn-hidden-size 18432 --num-attention-heads 128 \\
    --multi-latent-attention --q-lora-rank 1536 --kv-lora-rank 512 --qk-head-dim 128 \\
    --qk-pos-emb-head-dim 64 --v-head-dim 128 --position-embedding-type rope \\
    --num-experts 256 --moe-ffn-hidden-size 2048 --moe-shared-expert-intermediate-size 2048 \\
    --moe-router-topk 8 --moe-layer-freq "([0]*3+[1]*58)" --moe-router-num-groups 8 --moe-router-group-topk 4 \\
    --moe-token-dispatcher-type flex --swiglu --untie-embeddings-and-output-weights --vocab-size 129280 \\
    --seq-length 4096 --max-position-embeddings 4096 --micro-batch-size 1 --global-batch-size 15360 --bf16
"""


def test_deepseek_v3_total_and_activated_parameters(tmp_path):
    """DeepSeek-V3 Technical Report, abstract: "671B total parameters with 37B activated for each
    token"; within 3% from the launch above."""
    job = _job(tmp_path, DEEPSEEK_V3)
    shape, missing = S.from_job(job)
    assert missing == [] and shape.moe_layers == 58 and shape.dense_layers == 3 and shape.mla is not None
    assert job.value("moe_dispatcher") == "flex"
    assert (job.int("moe_router_groups"), job.int("moe_router_group_topk")) == (8, 4)
    p = S.params(shape)
    assert p.total / 1e9 == pytest.approx(671, rel=0.03)
    assert p.activated / 1e9 == pytest.approx(37, rel=0.03)


LLAMA3_405B = """\
#!/bin/bash
# Llama 3 405B (arXiv:2407.21783 Table 3: 126 layers, model dim 16,384, FFN 53,248, 128 heads, 8 KV
# heads, vocabulary 128K; Table 4 row 1: 8,192 GPUs, TP 8, CP 1, PP 16, DP 64, seq 8,192, 16M tokens)
torchrun --nproc_per_node 8 --nnodes 1024 pretrain_gpt.py \\
    --tensor-model-parallel-size 8 --pipeline-model-parallel-size 16 --sequence-parallel \\
    --num-layers 126 --hidden-size 16384 --ffn-hidden-size 53248 --num-attention-heads 128 \\
    --group-query-attention --num-query-groups 8 --swiglu --untie-embeddings-and-output-weights \\
    --position-embedding-type rope --vocab-size 128256 --seq-length 8192 --max-position-embeddings 8192 \\
    --micro-batch-size 1 --global-batch-size 2048 --bf16 --use-distributed-optimizer
"""


def test_llama3_405b_flops_per_token_within_ten_percent_of_6n(tmp_path):
    """Llama 3 Table 4: t·c·p·d = GPUs on every row; Megatron's count per token vs 6N within 10%
    (the causal core attention at 8K tokens and the logits are what 6N leaves out)."""
    for gpus, t, c, p, d in ((8192, 8, 1, 16, 64), (16384, 8, 1, 16, 128), (16384, 8, 16, 16, 8)):
        assert t * c * p * d == gpus
    job = _job(tmp_path, LLAMA3_405B)
    assert (job.int("world_size"), job.int("dp")) == (8192, 64)
    assert job.int("global_batch") * job.int("seq_len") == 16 * 2 ** 20        # "16M" tokens per batch
    shape, _ = S.from_job(job)
    p = S.params(shape)
    assert p.total / 1e9 == pytest.approx(405, rel=0.01)
    per_token = sum(S.flops_per_token(shape).values())
    assert per_token / (6 * p.total) == pytest.approx(1.0, abs=0.10)
    assert per_token / (6 * p.total) > 1.0
