"""Collective time, placement and the step in time (netlint.fabric.collectives, placement, step),
against hand-derived cases; published MFU reference points."""

from __future__ import annotations

import math

import pytest

from netlint.fabric import formulas as F
from netlint.fabric import placement as P
from netlint.fabric import step as ST
from netlint.fabric import traffic as T
from netlint.fabric.collectives import Links, collective_time, latency_us
from netlint.fabric.shape import ModelShape


def test_nccl_latency_model():
    """NVIDIA/nccl@5067397c src/graph/tuning.cc, Simple protocol: base 8.4 µs (L151), NVLink hop 3.4
    ring / 4.0 tree / 25 NVLS (L159-161), network hop 14 (L171). Ring all-reduce of 8 ranks on one
    node: 8.4 + 2·7·3.4; of 16 ranks on 2 nodes: 8.4 + (30-2)·3.4 + 2·14 (L411-412); tree: 8.4 +
    2·(7·4.0 + log2(2)·14) (L416); all-gather of 16 on 2 nodes: 8.4 + (15-1)·3.4 + 1·14."""
    assert latency_us("all-reduce", "ring", 8, 1) == pytest.approx(56.0)
    assert latency_us("all-reduce", "ring", 16, 2) == pytest.approx(131.6)
    assert latency_us("all-reduce", "tree", 16, 2) == pytest.approx(92.4)
    assert latency_us("all-gather", "ring", 16, 2) == pytest.approx(70.0)
    assert latency_us("all-reduce", "nvls", 8, 1) == 25.0
    assert latency_us("all-reduce", "ring", 1, 1) == 0.0


def test_collective_time_picks_the_fastest_algorithm():
    """Inside the node an all-reduce of 1 GB per rank runs on NVLS (480 GB/s busbw, nccl-tests#212,
    25 µs) rather than the ring (370.8 GB/s, 56 µs); an all-gather has only the ring. Across nodes the
    bytes through the NIC bind; tree all-reduce runs at 0.92 of it (tuning.cc L330-331) with a lower
    latency, and the cheaper of the two over 1000 calls is taken."""
    links = Links(nvlink=370.8, nvls=480.0, nic=47.0)
    t, algo = collective_time("all-reduce", 1e9, 0.0, 8, 1, 1, links)
    assert algo == "nvls" and t == pytest.approx(25e-6 + 1e9 / 480e9)
    t, algo = collective_time("all-gather", 1e9, 0.0, 8, 1, 1, links)
    assert algo == "ring" and t == pytest.approx(latency_us("all-gather", "ring", 8, 1) * 1e-6 + 1e9 / 370.8e9)
    t, algo = collective_time("all-reduce", 1e9, 1e8, 16, 2, 1000, links)
    ring = 1000 * 131.6e-6 + max(1e9 / 370.8e9, 1e8 / 47e9)
    tree = 1000 * 92.4e-6 + max(1e9 / 370.8e9, 1e8 / 47e9 / 0.92)
    assert t == pytest.approx(min(ring, tree)) and algo == ("tree" if tree < ring else "ring")
    assert collective_time("all-reduce", 1e9, 1e8, 16, 2, 1, Links(nvlink=370.8)) == (None, "-")


def test_fabric_share_of_hierarchical_collectives():
    """A node sends 2(N-1)/N·S of an all-reduce buffer S through its NICs, shared by its r ranks; an
    all-to-all sends (n-r)/(n-1) of its bytes off the node; TP=16 on 8-GPU nodes: N=2, r=8."""
    g = P.Group("tp", 16, 1)
    per_rank = 2 * 15 / 16 * 1e9
    assert P.fabric_bytes("all-reduce", per_rank, g, 8) == (2, pytest.approx(2 * 1 / 2 * 1e9 / 8))
    assert P.fabric_bytes("all-to-all", 1e9, P.Group("ep", 16, 1), 8) == (2, pytest.approx(1e9 * 8 / 15))
    assert P.fabric_bytes("all-reduce", per_rank, P.Group("tp", 8, 1), 8) == (1, 0.0)
    assert P.fabric_bytes("send/recv", 1e6, P.Group("pp", 4, 8), 8) == (4, 1e6)
    # the expert grid (parallel_state.py): EP stride ETP; the allgather dispatcher's TP×EP group is consecutive
    assert P.group_of("EP", 4, 2, 1, 4, 2, 4).stride == 2
    assert P.group_of("EP", 8, 2, 1, 4, 2, 4).stride == 1


SHAPE = ModelShape(layers=8, hidden=4096, heads=32, seq=2048, vocab=32000)
HW = ST.Hardware(peak_tflops=1000.0, efficiency=0.5, domain=8, gpus_per_node=8,
                 links=Links(nvlink=400.0, nic=10.0))


def test_compute_bubble_and_exposure():
    """compute = hardware FLOPs / GPUs / (peak × efficiency); bubble (p-1)/(v·m) of it (Narayanan
    §2.2.1); a DP all-reduce without --overlap-grad-reduce is exposed whole, with it only what exceeds
    the last micro-batch's backward (schedules.py L814)."""
    from netlint.fabric.shape import flops_step

    sp = T.Split(tp=8, pp=2, dp=4, micro_batch=1, global_batch=32)
    est = ST.evaluate(SHAPE, sp, T.Framework(), HW)
    compute = flops_step(SHAPE, 32) / 64 / (1000e12 * 0.5)
    assert est.compute_s == pytest.approx(compute) and est.microbatches == 8
    assert est.bubble_s == pytest.approx(1 / 8 * compute)
    dp = est.dims["DP"]
    assert dp.window_s == 0 and dp.exposed_s == pytest.approx(dp.time_s)
    over = ST.evaluate(SHAPE, sp, T.Framework(overlap_grad_reduce=True), HW).dims["DP"]
    assert over.window_s == pytest.approx(compute / 8 * 2 / 3)
    assert over.exposed_s == pytest.approx(max(0.0, over.time_s - over.window_s))
    assert est.step_s == pytest.approx(est.compute_s + est.bubble_s + sum(d.exposed_s for d in est.dims.values()))
    assert ST.evaluate(SHAPE, T.Split(dp=3, global_batch=32), T.Framework(), HW) is None   # 32 % 3


def test_required_bandwidth_keeps_exposure_within_budget():
    """required_gbps: the NIC bandwidth at which the dimension's exposed time equals budget × compute
    (or its NVLink-and-latency floor when that is higher)."""
    sp = T.Split(tp=8, pp=2, dp=4, micro_batch=1, global_batch=32)
    est = ST.evaluate(SHAPE, sp, T.Framework(), HW)
    dp = est.dims["DP"]
    need = ST.required_gbps(dp, est, 400.0, 0.1)
    floor = ST.exposed_at(dp, est, math.inf, 400.0)
    assert ST.exposed_at(dp, est, need, 400.0) == pytest.approx(max(0.1 * est.compute_s, floor), rel=1e-6)
    assert ST.exposed_at(dp, est, need * 0.9, 400.0) > max(0.1 * est.compute_s, floor)
    assert ST.required_gbps(est.dims["TP"], est, 400.0) is None            # TP stays on NVLink


def test_korthikanti_table5_mfu_from_iteration_times():
    """Korthikanti et al. 2022 Table 5 (present work: SP + selective recompute), A100 312 TFLOP/s,
    s=2048, V=51200, no DP; model FLOPs of App. A (the classic formula): MFU within 0.3 points."""
    rows = [  # (heads, hidden, layers, GPUs, global batch, iteration s, MFU %)
        (64, 6144, 48, 8, 4, 1.10, 41.5), (96, 12288, 96, 64, 64, 13.75, 51.4),
        (128, 20480, 105, 280, 280, 37.83, 56.0), (160, 25600, 128, 512, 512, 71.49, 56.3)]
    for _, h, L, n, B, t, mfu in rows:
        flops = F.model_flops(B, 2048, L, h, 51200)
        assert flops / (n * 312e12 * t) * 100 == pytest.approx(mfu, abs=0.3)


def test_megatron_2021_table1_classic_shape_is_the_paper_formula():
    """A classic GPT shape (FFN 4h, MHA, learned positions of s, tied) counts its parameters with
    Narayanan eq. 2 (Table 1 R10: 1008.0B); the causal FLOPs of current Megatron are below the
    paper's model FLOPs by the halved attention term."""
    from netlint.fabric import shape as S

    r10 = ModelShape(layers=128, hidden=25600, heads=160, seq=2048, vocab=51200, position=2048)
    assert r10.classic and round(S.params(r10).total / 1e9, 1) == 1008.0
    classic = F.model_flops(3072, 2048, 128, 25600, 51200)
    causal = S.flops_step(r10, 3072)
    # paper: 72·B·s·L·h²·(1 + s/6h + V/12hL); causal halves the s/6h term: 72·B·s·L·h²·(1 + s/12h + V/12hL)
    assert causal == pytest.approx(72 * 3072 * 2048 * 128 * 25600 ** 2 * (1 + 2048 / (12 * 25600)
                                                                         + 51200 / (12 * 25600 * 128)))
    assert causal < classic


def test_dense_gradients_are_reduced_over_dp_times_cp():
    """Megatron's DDP reduces over the dp_cp group (distributed_data_parallel.py L148-149, L289): with
    CP=2 and DP=4 the group has 8 ranks, consecutive after TP (stride t)."""
    est = ST.evaluate(SHAPE, T.Split(tp=4, cp=2, dp=4, global_batch=8), T.Framework(), HW)
    assert est.dims["DP"].group == 8
    assert P.group_of("DP", 8, 4, 2, 4, 4, 1).stride == 4
    assert P.group_of("DP", 2, 4, 2, 4, 4, 1, replicate=2).stride == 4 * 2 * 4 // 2
