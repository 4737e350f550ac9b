"""Bytes per GPU per step, per dimension and framework (netlint.fabric.traffic), each against a
hand-derived case. Lines: NVIDIA/Megatron-LM@d98e8a64, deepspeedai/DeepSpeed@38327e07,
pytorch/torchtitan@238fa99, NVIDIA/TransformerEngine@d0067d0d unless a test says otherwise."""

from __future__ import annotations

import pytest

from netlint.fabric import traffic as T
from netlint.fabric.shape import ModelShape

# L=4 layers, h=1024, 8 heads (d 128), s=2048, b=1, bf16: A = b·s·h·2 = 4 MiB per activation tensor
SHAPE = ModelShape(layers=4, hidden=1024, heads=8, seq=2048, vocab=1000)
A = 1 * 2048 * 1024 * 2


def total(rows, kind=None, window=None):
    return sum(r.per_rank for r in rows if (kind is None or r.kind == kind) and (window is None or r.window == window))


def test_tp_without_sp_is_8_per_layer_half_async():
    """layers.py L1566 (forward all-reduce of the row-parallel output) and L694-696 (backward all-reduce
    of the column-parallel input gradient, async behind the weight-gradient GEMM): per block
    2·2(t-1)/t·A, 8(t-1)/t·A per layer. t=4, 4 layers on 2 stages, 3 micro-batches."""
    sp = T.Split(tp=4, pp=2, dp=1)
    rows = T.tp(SHAPE, sp, T.Framework(), 3)
    per_layer = 8 * 3 / 4 * A
    assert total(rows) == pytest.approx(per_layer * 2 * 3)
    assert total(rows, window="none") == pytest.approx(total(rows, window="backward"))
    assert {r.kind for r in rows} == {"all-reduce"}


def test_tp_with_sp_is_10_per_layer():
    """layers.py L623-629 forward all-gather, L1561-1564 forward reduce-scatter, mappings.py L372-377
    backward all-gather, L666-681 the weight-gradient re-gather, L700-707 reduce-scatter of the input
    gradient: 6 all-gathers + 4 reduce-scatters of (t-1)/t·A per layer = 10(t-1)/t·A (20% above the
    8 of Korthikanti §4.2.2). Critical path: 2 AG + 1 RS per block."""
    rows = T.tp(SHAPE, T.Split(tp=8), T.Framework(sequence_parallel=True), 1)
    f = 7 / 8 * A
    assert total(rows) == pytest.approx(10 * f * 4)
    assert total(rows, "all-gather") == pytest.approx(6 * f * 4)
    assert total(rows, window="none") == pytest.approx(6 * f * 4)           # 3 of the 5 per block
    assert sum(r.calls for r in rows) == 10 * 4


def test_tp_full_recompute_and_overlap():
    """Full recomputation re-runs the forward collectives: 12 (no SP), 14 (SP) (t-1)/t·A per layer;
    --tp-comm-overlap (model_parallel_config.py L265-269) moves every TP collective behind the GEMMs."""
    no_sp = T.tp(SHAPE, T.Split(tp=2), T.Framework(recompute="full"), 1)
    sp = T.tp(SHAPE, T.Split(tp=2), T.Framework(recompute="full", sequence_parallel=True), 1)
    assert total(no_sp) == pytest.approx(12 * 0.5 * A * 4) and total(sp) == pytest.approx(14 * 0.5 * A * 4)
    over = T.tp(SHAPE, T.Split(tp=2), T.Framework(sequence_parallel=True, tp_comm_overlap=True), 1)
    assert {r.window for r in over} == {"step"}


def test_tp_moe_layers_keep_attention_and_shared_expert_collectives():
    """A MoE layer's MLP goes through the dispatcher; the shared expert is a TP-parallel MLP
    (moe_layer.py). 4 layers, 2 MoE: blocks = 4 attention + 2 dense MLP (+ 2 shared experts)."""
    moe = ModelShape(layers=4, hidden=1024, heads=8, seq=2048, experts=8, moe_layers=2, topk=2)
    shared = ModelShape(layers=4, hidden=1024, heads=8, seq=2048, experts=8, moe_layers=2, topk=2, shared_ffn=512)
    per_block = 4 * 0.5 * A
    assert total(T.tp(moe, T.Split(tp=2), T.Framework(), 1)) == pytest.approx(6 * per_block)
    assert total(T.tp(shared, T.Split(tp=2), T.Framework(), 1)) == pytest.approx(8 * per_block)


def test_pp_tensor_is_divided_by_tp_only_with_sp():
    """schedules.py L2136-2143: (s/c [/t with SP], b, h) each way per micro-batch; ×v interleaved."""
    sp = T.Split(tp=4, pp=4, cp=2, vpp=2)
    plain = T.pp(SHAPE, sp, T.Framework(), 8)[0]
    assert plain.per_rank == 2 * 8 * 2 * (2048 / 2) * 1024 * 2
    seq = T.pp(SHAPE, sp, T.Framework(sequence_parallel=True), 8)[0]
    assert seq.per_rank == plain.per_rank / 4
    assert plain.window == "step"                    # interleaved with overlap_p2p_comm (arguments.py L3118)
    assert T.pp(SHAPE, T.Split(pp=4), T.Framework(), 8)[0].window == "none"


def test_megatron_dp_ddp_and_distributed_optimizer():
    """param_and_grad_buffer.py L600-760: all-reduce (DDP) or reduce-scatter + all-gather (L383-530,
    distributed optimizer) once per step; fp32 gradients (arguments.py L1204-1217), bf16 parameters.
    One bucket without --overlap-grad-reduce, max(40M, 1M·d) parameters with it
    (distributed_data_parallel.py L131-137). Ψ = 1e9 per rank, d = 8."""
    psi, d = 1e9, 8
    ddp = T.dp(psi, d, T.Split(dp=d), T.Framework(), 4)
    assert [(r.kind, r.per_rank, r.calls, r.window) for r in ddp] == [("all-reduce", 2 * 7 / 8 * psi * 4, 1, "none")]
    dist = T.dp(psi, d, T.Split(dp=d), T.Framework(distributed_optimizer=True, overlap_grad_reduce=True,
                                                   overlap_param_gather=True), 4)
    assert [(r.kind, r.per_rank, r.calls, r.window) for r in dist] == [
        ("reduce-scatter", 7 / 8 * psi * 4, 25, "last-backward"), ("all-gather", 7 / 8 * psi * 2, 25, "first-forward")]


def test_deepspeed_zero_stages():
    """engine.py L2048-2062: ZeRO-0/1 reduce at the boundary, ZeRO-2 after every micro-batch; with the
    default use_multi_rank_bucket_allreduce the reduce_scatter path all-reduces (stage_1_and_2.py
    L1127-1140 → L1510), only without it each slice is reduced to its owner (L1142-1146, L1513); the
    updated parameters are all-gathered (L1930-1934); ZeRO-3 all-gathers parameters for forward and
    backward and reduce-scatters gradients every micro-batch (stage3.py L1372-1391). Ψ=1e9, d=4, m=3,
    2-byte gradients and parameters."""
    psi, d, m, f = 1e9, 4, 3, 3 / 4
    fw = dict(grad_bytes=2, param_bytes=2)
    z1 = T.dp(psi, d, T.Split(dp=d), T.Framework(zero_stage=1, **fw), m)
    assert [(r.kind, r.per_rank) for r in z1] == [("all-reduce", 2 * f * psi * 2), ("all-gather", f * psi * 2)]
    z1r = T.dp(psi, d, T.Split(dp=d), T.Framework(zero_stage=1, ds_reduce="reduce", **fw), m)
    assert [(r.kind, r.per_rank) for r in z1r][0] == ("reduce-scatter", f * psi * 2)
    z2 = T.dp(psi, d, T.Split(dp=d), T.Framework(zero_stage=2, overlap_comm=True, **fw), m)
    assert z2[0].per_rank == 2 * f * psi * 2 * m and z2[0].window == "backward" and z2[0].calls == 2 * m
    z3 = T.dp(psi, d, T.Split(dp=d), T.Framework(zero_stage=3, overlap_comm=True, **fw), m)
    assert total(z3) == pytest.approx(3 * f * psi * 2 * m)                # ZeRO §7.2.2: 3Ψ per micro-batch
    z0 = T.dp(psi, d, T.Split(dp=d), T.Framework(zero_stage=0, grad_bytes=4), m)
    assert [(r.kind, r.per_rank) for r in z0] == [("all-reduce", 2 * f * psi * 4)]


def test_torchtitan_fsdp_bf16_gather_fp32_reduce():
    """job_config.py L282-293: parameters gathered in bf16, gradients reduced in fp32, every micro-batch
    (train.py L561); re-gathered for backward unless PP (llama3/infra/parallelize.py L319-327); HSDP
    all-reduces the shard over the replicas. Ψ=1e9, 8 shards, m=2."""
    psi, m = 1e9, 2
    rows = T.dp(psi, 8, T.Split(dp=8), T.Framework(name="torchtitan", param_bytes=2, grad_bytes=4), m)
    assert total(rows, "all-gather") == pytest.approx(2 * 7 / 8 * psi * 2 * m)
    assert total(rows, "reduce-scatter") == pytest.approx(7 / 8 * psi * 4 * m)
    pp = T.dp(psi, 8, T.Split(dp=8, pp=2), T.Framework(name="torchtitan", fsdp_reshard=False), m)
    assert total(pp, "all-gather") == pytest.approx(7 / 8 * psi * 2 * m)
    hsdp = T.dp(psi, 8, T.Split(dp=8), T.Framework(name="torchtitan", fsdp_replicate=2), m)
    assert total(hsdp, "all-reduce") == pytest.approx(2 * 1 / 2 * psi / 4 * 4 * m)


MOE = ModelShape(layers=8, hidden=1024, heads=8, seq=4096, experts=16, moe_layers=4, topk=2)


def test_ep_alltoall_topk_only_moe_layers_and_fp8_dispatch():
    """token_dispatcher.py L705-724, L864-870: dispatch and combine all-to-alls, forward and backward,
    k copies per token, only MoE layers; tokens per rank b·s/(c·t). MXFP8 forward dispatch
    (transformer_config.py L997-1003): 1 + 1/32 bytes. e=8, t=2, 2 stages, m=2:
    T = 4096/2 = 2048; per layer T·k·h·(e-1)/e·(a_d + 3a)."""
    sp = T.Split(tp=2, pp=2, ep=8)
    rows = T.ep(MOE, sp, T.Framework(moe_dispatcher="alltoall"), 2, 8)
    per_layer = 2048 * 2 * 1024 * 7 / 8 * (2 + 3 * 2)
    assert [(r.dim, r.kind) for r in rows if r.dim == "EP"] == [("EP", "all-to-all")]
    assert rows[0].per_rank == pytest.approx(per_layer * 2 * 2) and rows[0].calls == 4 * 2 * 2
    fp8 = T.ep(MOE, sp, T.Framework(moe_dispatcher="alltoall", dispatch_bytes=T.MXFP8), 2, 8)[0]
    assert fp8.per_rank == pytest.approx(2048 * 2 * 1024 * 7 / 8 * (1 + 1 / 32 + 6) * 2 * 2)
    # ETP's extra collectives (L741-752, L824-833): all-gather + reduce-scatter of the received tokens
    etp = T.ep(MOE, T.Split(tp=2, pp=2, ep=4, etp=2), T.Framework(moe_dispatcher="alltoall"), 2, 8)
    assert total([r for r in etp if r.dim == "ETP"]) == pytest.approx(4 * 1 * 2048 * 2 * 1024 * 2 * 2 * 2)


def test_ep_allgather_dispatcher_gathers_every_token():
    """The default dispatcher (transformer_config.py L891) all-gathers all tokens over the TP×EP group
    and reduce-scatters them back (L281-300, L355-368): 4(n-1)·T·h·a per MoE layer per micro-batch."""
    rows = T.ep(MOE, T.Split(ep=8), T.Framework(moe_dispatcher="allgather"), 1, 8)
    assert total(rows) == pytest.approx(4 * 7 * 4096 * 1024 * 2 * 4)
    assert {r.group for r in rows} == {8}


def test_remote_nodes_uniform_and_node_limited():
    """Expected other nodes a token reaches. One expert of 4 on 2 nodes: the other node half the time.
    DeepSeek-V3 (256 experts, top-8, 8 nodes, 4 node groups of 8): 8·(1/2)·(1 − C(96,8)/C(128,8))·7/8
    ≈ 3.18 — against 7 copies without per-node dedup (8 · 56/64)."""
    import math

    assert T.remote_nodes(4, 1, 2) == pytest.approx(0.5)
    dsv3 = 8 * 0.5 * (1 - math.comb(96, 8) / math.comb(128, 8)) * 7 / 8
    assert T.remote_nodes(256, 8, 8, 8, 4) == pytest.approx(dsv3)
    assert dsv3 == pytest.approx(3.18, abs=0.01)
    assert T.remote_nodes(256, 8, 8) > dsv3                 # without the node limit more nodes are hit


def test_ep_flex_dedups_per_node():
    """DeepEP (flex): a token crosses the fabric once per remote node (deepseek-ai/DeepEP README)."""
    sp = T.Split(ep=64)
    fw = T.Framework(moe_dispatcher="flex", router_groups=8, router_group_topk=4)
    shape = ModelShape(layers=1, hidden=7168, heads=128, seq=4096, experts=256, moe_layers=1, topk=8)
    row = T.ep(shape, sp, fw, 1, 8)[0]
    assert row.fabric == pytest.approx(4096 * 7168 * 8 * T.remote_nodes(256, 8, 8, 8, 4))
    assert row.per_rank == pytest.approx(4096 * 7168 * 8 * 63 / 64 * 8)


def test_deepspeed_moe_pads_to_capacity():
    """sharded_moe.py L161-169, L406: ceil(k·T/E·capacity_factor) tokens per expert, the padded
    buffer all-to-all'd (L628, L654)."""
    rows = T.ep(MOE, T.Split(ep=8), T.Framework(moe_dispatcher="deepspeed", capacity_factor=1.25), 1, 8)
    assert rows[0].per_rank == pytest.approx(1.25 * 2 * 4096 * 1024 * 7 / 8 * 8 * 4)


def test_cp_ring_all_gather_and_a2a():
    """TE context_parallel.py: p2p passes K/V c-1 times forward, K/V and dK/dV backward (3(c-1) chunks),
    overlapped with attention; all_gather gathers K/V forward (L3215-3216) and backward (L3788-3789)
    and reduce-scatters dK/dV (L4107-4108): the same bytes, not overlappable (Megatron
    transformer_config.py L1030-1045). GQA 2 KV groups of 128: KV = b·(s/c)·2·2·128·a / t."""
    shape = ModelShape(layers=2, hidden=1024, heads=8, kv_heads=2, seq=8192)
    sp = T.Split(cp=4, tp=2)
    kv = 8192 / 4 * 2 * 2 * 128 * 2 / 2
    ring = T.cp(shape, sp, T.Framework(), 1)
    assert ring[0].kind == "send/recv" and ring[0].per_rank == pytest.approx(3 * 3 * kv * 2)
    assert ring[0].window == "attention"
    ag = T.cp(shape, sp, T.Framework(cp_comm="all_gather"), 1)
    assert total(ag) == pytest.approx(3 * 3 * kv * 2) and {r.window for r in ag} == {"none"}
    a2a = T.cp(shape, sp, T.Framework(cp_comm="a2a"), 1)[0]
    assert a2a.per_rank == pytest.approx(2 * 3 / 4 * 8192 / 4 * 2 / 2 * (2 * 1024 + 512) * 2)
