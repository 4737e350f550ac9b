"""Memory per GPU (netlint.fabric.memory) against hand-derived cases; each test names the formula's source."""

from __future__ import annotations

import pytest

from netlint.fabric import memory as M
from netlint.fabric import shape as S
from netlint.fabric.traffic import Framework, Split

GPT3 = S.ModelShape(layers=96, hidden=12288, heads=96, seq=2048, vocab=51200, position=2048)
SBH = 2048 * 1 * 12288


@pytest.mark.parametrize("param,grad,plain,dist", [(2, 2, 20, (4, 16)), (2, 4, 18, (6, 12)), (4, 4, 16, (8, 8))])
def test_megatron_bytes_per_parameter(param, grad, plain, dist):
    """NVIDIA/Megatron-LM@d98e8a64 docs/user-guide/features/dist_optimizer.md L16-20: fp16/fp16 20 and
    4 + 16/d, bf16/fp32 18 and 6 + 12/d, fp32/fp32 16 and 8 + 8/d."""
    assert sum(M.megatron_bytes(param, grad, False, 8)) == plain
    assert sum(M.megatron_bytes(param, grad, True, 8)) == pytest.approx(dist[0] + dist[1] / 8)


@pytest.mark.parametrize("stage,gb", [(0, 120.0), (1, 31.4), (2, 16.6), (3, 1.9)])
def test_zero_paper_figure_1(stage, gb):
    """Rajbhandari et al. 2020 §5.1 / Fig. 1: Ψ = 7.5B, N_d = 64, K = 12 — 120, 31.4, 16.6, 1.9 GB."""
    assert sum(M.zero_bytes(stage, 64)) * 7.5e9 / 1e9 == pytest.approx(gb, abs=0.05)


def test_fsdp_shards_everything():
    """torchtitan@238fa99 config/job_config.py L282-293: fp32 parameters, gradients, Adam moments, all sharded."""
    assert M.fsdp_bytes(16) == (0.25, 0.25, 0.5)


# Korthikanti et al. 2022 Table 2 (activations per transformer layer, bytes) on GPT-3 175B: 5as/h = 80.
@pytest.mark.parametrize("t,sp,recompute,want", [
    (1, False, None, SBH * (34 + 80)),                    # no parallelism: eq. 1
    (8, False, None, SBH * (10 + 24 / 8 + 80 / 8)),       # tensor parallel: eq. 2
    (8, True, None, SBH / 8 * (34 + 80)),                 # tensor + sequence parallel: eq. 4
    (8, False, "selective", SBH * (10 + 24 / 8)),         # + selective recomputation
    (8, True, "selective", SBH * 34 / 8),
    (8, False, "full", SBH * 2),                          # full recomputation: 2sbh
])
def test_korthikanti_table_2(t, sp, recompute, want):
    got = M.layer_activations(GPT3, 1, t, sp=sp, recompute=recompute, flash=False)
    assert got == pytest.approx(want)


def test_flash_attention_keeps_no_scores():
    """Fused attention stores no s×s scores (Dao et al. 2022 §3.1): the selective-recompute row."""
    assert M.layer_activations(GPT3, 1, 8, sp=True) == pytest.approx(SBH * 34 / 8)


def test_megatron_generalisation_for_other_ffn_sizes():
    """megatron/training/theoretical_memory_usage.py L317-319 at d98e8a64: sbh(18 + 4·ffn/h) with SP and
    selective recomputation, divided by TP (L379)."""
    shape = S.ModelShape(layers=24, hidden=2048, heads=16, seq=4096, ffn=3 * 2048)
    assert M.layer_activations(shape, 2, 4, sp=True) == pytest.approx(4096 * 2 * 2048 * (18 + 4 * 3) / 4)


def test_gqa_and_swiglu_items():
    """The itemisation of Korthikanti §4.1 with GQA and a gated MLP (Llama-3-8B-like, t = 1): 10sbh
    replicated; Q 2sbh, K and V 2sb·g·d each (g·d = 1024), projection input 2sbh; fc1 output 2·2sbF
    (two halves), fc2 input 2sbF."""
    shape = S.ModelShape(layers=32, hidden=4096, heads=32, seq=4096, kv_heads=8, ffn=14336, gated=True)
    sb = 4096
    want = 10 * sb * 4096 + 2 * sb * (2 * 4096 + 2 * 1024) + 6 * sb * 14336
    assert M.layer_activations(shape, 1, 1) == pytest.approx(want)


def test_moe_layer_holds_topk_copies():
    """Mixtral 8x7B-like MoE layer (top-2, expert FFN 14336, gated): the MLP items become two copies of
    the rank's tokens — permuted input 2sbh, fc1 output 4sbF, fc2 input 2sbF each (uniform routing)."""
    shape = S.ModelShape(layers=32, hidden=4096, heads=32, seq=4096, kv_heads=8, ffn=14336, gated=True,
                         experts=8, moe_layers=32, topk=2)
    sb, h, f = 4096, 4096, 14336
    want = 10 * sb * h + 2 * sb * (2 * h + 2 * 1024) + 2 * (2 * sb * h + 6 * sb * f)
    assert M.layer_activations(shape, 1, 1, moe=True) == pytest.approx(want)


@pytest.mark.parametrize("p,m,v,want", [(1, 8, 1, 1.0), (4, 2, 1, 0.5), (4, 8, 1, 1.0), (4, 8, 2, 1 + 3 / 8)])
def test_microbatches_in_flight(p, m, v, want):
    """Korthikanti §4.2.3: the first stage holds p micro-batches of L/p layers (L layers' worth), fewer
    when m < p (theoretical_memory_usage.py L357-362); interleaved × (1 + (p-1)/(p·m_v)) (L341-355)."""
    assert M.in_flight(p, m, v) == pytest.approx(want)


def test_gpt3_most_loaded_shard_and_states():
    """theoretical_memory_usage.py L247-252: (transformer params / PP + embedding) / TP on the first
    stage; bf16 with fp32 main gradients and the distributed optimizer over DP 8: 6 + 12/8 bytes."""
    sp = Split(tp=8, pp=16, dp=8, micro_batch=1, global_batch=1536)
    fw = Framework(grad_bytes=4, param_bytes=2, distributed_optimizer=True, sequence_parallel=True)
    emb = 51200 * 12288 + 2048 * 12288
    body = S.params(GPT3).total - emb
    want = (body / 16 + emb) / 8
    assert M.shard(GPT3, sp).dense == pytest.approx(want)
    w, g, o = M.states(GPT3, sp, fw)
    assert (w, g, o) == pytest.approx((2 * want, 4 * want, 12 / 8 * want))


def test_gpt3_first_stage_activations():
    """Korthikanti eq. 5 + §4.3: 34·sbh·L/t (selective, SP; 96 micro-batches ≥ p) + the embedding
    dropout mask sbh·p/t and the input ids 8sbp, × 1.05 (theoretical_memory_usage.py L449-451)."""
    sp = Split(tp=8, pp=16, dp=8, micro_batch=1, global_batch=1536)
    fw = Framework(sequence_parallel=True)
    want = (34 * SBH / 8 * 96 + SBH * 16 / 8 + 8 * 2048 * 16) * 1.05
    assert M.activations(GPT3, sp, fw) == pytest.approx(want)


def test_175b_on_one_node_does_not_fit_but_tp8_pp16_does():
    """The usable share of 80 GB (0.9): GPT-3 175B cannot train on TP 8 alone (≈18 B params × 7.5+ bytes
    per GPU); TP 8 × PP 16 holds ≈1.44 B parameters per GPU."""
    fw = Framework(grad_bytes=4, param_bytes=2, distributed_optimizer=True, sequence_parallel=True)
    small = M.per_gpu(GPT3, Split(tp=8, pp=1, dp=128, micro_batch=1, global_batch=1536), fw, 80)
    big = M.per_gpu(GPT3, Split(tp=8, pp=16, dp=8, micro_batch=1, global_batch=1536), fw, 80)
    assert not small.fits and big.fits and big.limit == pytest.approx(72e9)
    assert big.as_dict()["total_gb"] == pytest.approx(big.total / 1e9, abs=0.01)


def test_deepspeed_bf16_without_zero_shards_the_optimizer():
    """deepspeedai/DeepSpeed@38327e07 runtime/engine.py L1017-1019 (bf16 without ZeRO accumulates in
    fp32), L1346-1348 (then BF16_Optimizer), runtime/bf16_optimizer.py L147-165 (fp32 master partition
    per DP rank): bf16 parameters 2 + fp32 gradients 4 + 12/d; fp16 without ZeRO keeps all 16 (ZeRO §3.1)."""
    sp = Split(tp=4, pp=12, dp=4, micro_batch=2, global_batch=2048)
    fw = Framework(name="megatron-deepspeed", grad_bytes=2, param_bytes=2, zero_stage=0)
    psi = M.shard(GPT3, sp).dense
    assert sum(M.states(GPT3, sp, fw, bf16=True)) == pytest.approx(psi * (6 + 12 / 4))
    assert sum(M.states(GPT3, sp, fw, bf16=False)) == pytest.approx(psi * 16)
