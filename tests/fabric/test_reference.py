"""Reference cases of shared/reference/reference-cases.md at their stated tolerances."""

from __future__ import annotations

import pytest

from netlint import hardware
from netlint.fabric import formulas as F

# R1-R10: Megatron 2021 Table 1 (params B, heads, hidden, layers, TP, PP, GPUs, batch, TFLOP/s/GPU, % peak)
TABLE1 = [
    (1.7, 24, 2304, 24, 1, 1, 32, 512, 137, 44), (3.6, 32, 3072, 30, 2, 1, 64, 512, 138, 44),
    (7.5, 32, 4096, 36, 4, 1, 128, 512, 142, 46), (18.4, 48, 6144, 40, 8, 1, 256, 1024, 135, 43),
    (39.1, 64, 8192, 48, 8, 2, 512, 1536, 138, 44), (76.1, 80, 10240, 60, 8, 4, 1024, 1792, 140, 45),
    (145.6, 96, 12288, 80, 8, 8, 1536, 2304, 148, 47), (310.1, 128, 16384, 96, 8, 16, 1920, 2160, 155, 50),
    (529.6, 128, 20480, 105, 8, 35, 2520, 2520, 163, 52), (1008.0, 160, 25600, 128, 8, 64, 3072, 3072, 163, 52),
]
IMPLIED_ITER = [3.53, 3.70, 3.70, 9.40, 14.45, 16.06, 24.82, 37.61, 54.08, 102.63]


@pytest.mark.parametrize("row", TABLE1, ids=[f"R{i + 1}" for i in range(10)])
def test_table1_parameter_counts_to_0_1B(row):
    params, _, h, l = row[:4]
    assert round(F.params_megatron(l, h, 51200, 2048) / 1e9, 1) == params


@pytest.mark.parametrize("i,row", list(enumerate(TABLE1)), ids=[f"R{i + 1}" for i in range(10)])
def test_table1_flops_consistent_with_throughput(i, row):
    """eq. 3 FLOPs per step / (GPUs × published TFLOP/s) = the implied iteration time (±2%), and
    % of peak = X/312 to ±1 point."""
    _, _, h, l, _, _, gpus, batch, tflops, pct = row
    flops = F.flops_megatron_2021(batch, 2048, l, h, 51200)
    iteration = flops / (gpus * tflops * 1e12)
    assert iteration == pytest.approx(IMPLIED_ITER[i], rel=0.02)
    assert abs(tflops / hardware.gpu("A100-80GB").bf16_dense_tflops * 100 - pct) <= 1
    # the step time at the row's hardware-FLOPs utilisation reproduces the same iteration time
    assert F.step_time(flops, gpus, 312, tflops / 312) == pytest.approx(iteration)


def test_model_flops_mfu_about_three_quarters_of_table1():
    _, _, h, l, _, _, gpus, batch, tflops, _ = TABLE1[9]
    ratio = F.model_flops(batch, 2048, l, h, 51200) / F.flops_megatron_2021(batch, 2048, l, h, 51200)
    assert ratio == pytest.approx(0.75, abs=0.01)
    assert ratio * tflops / 312 == pytest.approx(0.39, abs=0.01)


def test_r11_training_time_estimates():
    assert F.training_days(300e9, 175e9, 1024, 140e12) == pytest.approx(33.9, abs=0.1)
    assert F.training_days(450e9, 1e12, 3072, 163e12) == pytest.approx(83.2, abs=0.1)


def test_r12_ptdp_days():
    assert F.training_days(300e9, 174.6e9, 1536, 141e12) == pytest.approx(22.4, abs=0.1)


def test_r17_zero_memory():
    m = F.zero_memory_gb(7.5e9, 64)
    assert (round(m["baseline"], 1), round(m["os"], 1), round(m["os+g"], 1), round(m["os+g+p"], 1)) == \
        (120.0, 31.4, 16.6, 1.9)


def test_r18_zero_communication():
    psi = 1e9
    base = sum(F.dp_bytes(psi, 1_000_000, "allreduce", 1, 1).values())
    z3 = sum(F.dp_bytes(psi, 1_000_000, "zero3", 1, 1).values())
    assert base == pytest.approx(2 * psi, rel=1e-5) and z3 == pytest.approx(3 * psi, rel=1e-5)


def test_r19_distributed_optimizer_bytes_per_param():
    for d in (8, 64):
        assert 6 + 12 / d == pytest.approx(2 + 4 + (4 + 4 + 4) / d)  # bf16 param, fp32 grad, fp32 Adam


def test_r21_llama3_interpod_link_per_gpu():
    assert 400 / 7 / 8 == pytest.approx(7.1, abs=0.05)


def test_r25_busbw_and_nic_rates():
    assert 480 / F.busbw_factor_allreduce(8) == pytest.approx(275, abs=1)
    assert hardware.link_gbytes("400G") * hardware.NIC_ACHIEVABLE_FRACTION == pytest.approx(47, abs=1)
    assert hardware.link_gbytes("100G") * 0.976 == pytest.approx(12.2, abs=0.01)


def test_generic_collectives():  # §3.B
    assert F.allreduce_bytes(1e9, 8) == pytest.approx(1.75e9)
    assert F.all_gather_bytes(1e9, 8) == pytest.approx(0.875e9)


def test_generic_tp_and_pp():  # §3.B
    a = 1 * 4096 * 8192 * 2
    assert a / 1e6 == pytest.approx(67.1, abs=0.05)
    assert F.tp_bytes_per_layer(1, 4096, 8192, 8) / 1e6 == pytest.approx(470, abs=0.5)
    assert F.pp_bytes_per_microbatch(1, 4096, 8192, 2, 8) / 1e6 == pytest.approx(8.4, abs=0.05)


def test_generic_bubble_and_zero3():  # §3.B, §3.C-6
    assert F.bubble_ideal(4, 8, 2) == pytest.approx(0.1875)
    assert F.bubble_wall(4, 8, 2) == pytest.approx(0.158, abs=0.001)
    assert (F.bubble_ideal(8, 10), round(F.bubble_wall(8, 10), 3)) == (0.7, 0.412)
    assert 3 * 1e9 * 2 == 6e9


def test_reference_document_numbers():  # §3.C
    assert 175e9 * 4 / 50e9 == 14.0                                          # C-1 one-way transfer
    assert F.allreduce_bytes(700e9, 1024) / 1e12 == pytest.approx(1.40, abs=0.005)   # C-2
    assert F.allreduce_bytes(700e9, 1024) / 50e9 == pytest.approx(28, abs=0.1)       # C-3 injection bound
    assert F.allreduce_bytes(28e9, 512) / (8 * 50e9) == pytest.approx(0.140, abs=0.001)  # C-4
    assert 2048 * 4096 * 4096 * 2 / 50e9 == pytest.approx(1.37, abs=0.005)             # C-5
    assert F.pp_bytes_per_microbatch(1, 4096, 4096) / 1e6 == pytest.approx(33.6, abs=0.05)
    assert 64 * 64 * 2048 == 8 * 2 ** 20                                          # C-7
    assert F.alltoall_bytes(4096 * 8 * 7168 * 2, 64) / 1e6 == pytest.approx(462, abs=1)
    assert 4 * F.alltoall_bytes(4096 * 8 * 7168 * 2, 64) / 1e9 == pytest.approx(1.85, abs=0.01)
    assert 100e9 / 8 / 1e9 == 12.5                                                # C-8


def test_llama3_405b_tp_budget():  # §1.12
    a = 1 * 8192 * 16384 * 2
    per_layer = F.tp_bytes_per_layer(1, 8192, 16384, 8)
    assert a / 1e6 == pytest.approx(268, abs=1) and per_layer / 1e9 == pytest.approx(1.88, abs=0.01)
    total = per_layer * (126 / 16) * 32
    assert total / 1e9 == pytest.approx(474, abs=2)
    assert F.transfer_time(total, 370) == pytest.approx(1.3, abs=0.05)
