"""Closed forms from the papers and collective volumes. Units: bytes, FLOPs, seconds, GB = 1e9 bytes,
GB/s per direction. These are the papers' counts, kept for their reference cases (Megatron 2021
Table 1, Korthikanti 2022 Table 5, ZeRO §5/§7); what the frameworks do today — causal FLOPs, the SP
re-gather, DeepSpeed's bucket all-reduce, dispatchers — is in :mod:`netlint.fabric.shape` and
:mod:`netlint.fabric.traffic`, which the model uses."""

from __future__ import annotations


# NVIDIA/nccl-tests doc/PERFORMANCE.md (03a204a1): bytes each rank sends (bandwidth-optimal algorithms).
def allreduce_bytes(size: float, n: int) -> float:
    """All-reduce of ``size`` bytes per rank over n ranks: 2(n-1)/n · S."""
    return 0.0 if n <= 1 else 2.0 * (n - 1) / n * size


def reduce_scatter_bytes(total: float, n: int) -> float:
    """Reduce-scatter (S = whole array): (n-1)/n · S."""
    return 0.0 if n <= 1 else (n - 1) / n * total


all_gather_bytes = reduce_scatter_bytes      # all-gather (S = total gathered array): (n-1)/n · S
alltoall_bytes = reduce_scatter_bytes        # all-to-all (S = per-rank send buffer): (n-1)/n · S


def busbw_factor_allreduce(n: int) -> float:
    """busbw = algbw × 2(n-1)/n (PERFORMANCE.md; 480 GB/s busbw ⇔ 275 algbw on 8 GPUs, nccl-tests#212)."""
    return 2.0 * (n - 1) / n


# Parameters and FLOPs of the classic GPT shape.
def params_megatron(layers: int, hidden: int, vocab: int, seq: int) -> float:
    """Narayanan et al. 2021 eq. 2: P = 12·l·h²·(1 + 13/(12h) + (V+s)/(12·l·h))."""
    l, h = layers, hidden
    return 12 * l * h * h * (1 + 13 / (12 * h) + (vocab + seq) / (12 * l * h))


def flops_megatron_2021(batch: int, seq: int, layers: int, hidden: int, vocab: int) -> float:
    """Narayanan et al. 2021 eq. 3 (with activation recomputation, i.e. hardware FLOPs):
    F = 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h))."""
    B, s, l, h, V = batch, seq, layers, hidden, vocab
    return 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h))


def model_flops(batch: int, seq: int, layers: int, hidden: int, vocab: int) -> float:
    """Korthikanti et al. 2022 App. A, model FLOPs per step: 72·B·s·L·h²·(1 + s/(6h) + V/(12·h·L))."""
    B, s, L, h, V = batch, seq, layers, hidden, vocab
    return 72 * B * s * L * h * h * (1 + s / (6 * h) + V / (12 * h * L))


def model_flops_general(batch: int, seq: int, layers: int, hidden: int, vocab: int, heads: int,
                        query_groups: int, ffn: int, swiglu: bool, topk: int = 1) -> float:
    """Megatron's ``num_floating_point_operations`` before causal attention was counted (full s²):
    12·B·s·L·h²·[(1 + g/a + s/h) + (ffn/h)·topk·(3/2 if SwiGLU) + V/(2·L·h)]; equals
    :func:`model_flops` for ffn = 4h, no GQA, no SwiGLU, top-1. Superseded by
    :func:`netlint.fabric.shape.flops_per_token`."""
    B, s, L, h, V = batch, seq, layers, hidden, vocab
    glu = 1.5 if swiglu else 1.0
    return 12 * B * s * L * h * h * ((1 + query_groups / heads + s / h) + (ffn / h) * topk * glu
                                     + V / (2 * L * h))


def training_days(tokens: float, params: float, gpus: int, flops_per_gpu: float) -> float:
    """Narayanan et al. 2021 eq. 4: end-to-end time ≈ 8·T·P/(n·X), in days."""
    return 8 * tokens * params / (gpus * flops_per_gpu) / 86400


def step_time(flops: float, gpus: int, peak_tflops: float, mfu: float) -> float:
    """t_step = F_step / (n_gpu · peak_dense · MFU) (the MFU definition of Korthikanti 2022 §6.3)."""
    return flops / (gpus * peak_tflops * 1e12 * mfu)


# The ZeRO paper's data-parallel bytes per rank per step (psi = parameters held by the rank).
def dp_bytes(psi: float, d: int, scheme: str, grad_bytes: int = 2, param_bytes: int = 2,
             microbatches: int = 1) -> dict[str, float]:
    """Bytes a DP rank sends per step, by collective.

    - ``allreduce`` (DDP / non-distributed optimizer): 2(d-1)/d·Ψ·g once per step (ZeRO §7.1).
    - ``distopt`` (Megatron distributed optimizer): reduce-scatter (d-1)/d·Ψ·g + all-gather
      (d-1)/d·Ψ·w (Megatron-LM docs "Distributed Optimizer").
    - ``zero1``/``zero2`` (DeepSpeed's default multi-rank bucket all-reduce, DeepSpeed#5758): all-reduce 2(d-1)/d·Ψ·g + parameter
      all-gather (d-1)/d·Ψ·w; ZeRO-2 reduces after every micro-batch backward (DeepSpeed#2252): × m.
    - ``zero3``: 2 all-gathers of parameters per micro-batch + reduce-scatter of gradients
      (ZeRO §7.2.2, "3Ψ"), × m with gradient accumulation.
    """
    if d <= 1:
        return {}
    f = (d - 1) / d
    g, w, m = grad_bytes, param_bytes, max(1, microbatches)
    if scheme == "allreduce":
        return {"all-reduce": 2 * f * psi * g}
    if scheme == "distopt":
        return {"reduce-scatter": f * psi * g, "all-gather": f * psi * w}
    if scheme == "zero1":
        return {"all-reduce": 2 * f * psi * g, "all-gather": f * psi * w}
    if scheme == "zero2":
        return {"all-reduce": 2 * f * psi * g * m, "all-gather": f * psi * w}
    if scheme == "zero3":
        return {"reduce-scatter": f * psi * g * m, "all-gather": 2 * f * psi * w * m}
    raise ValueError(scheme)


def zero_memory_gb(psi: float, nd: int, k: int = 12) -> dict[str, float]:
    """ZeRO §5 / Fig. 1: model-state bytes per GPU, mixed-precision Adam (K = 12)."""
    return {"baseline": (2 + 2 + k) * psi / 1e9, "os": (2 * psi + 2 * psi + k * psi / nd) / 1e9,
            "os+g": (2 * psi + (2 + k) * psi / nd) / 1e9, "os+g+p": (2 + 2 + k) * psi / nd / 1e9}


# Tensor parallel, as the papers count it.
def tp_bytes_per_layer(b: int, s: int, h: int, t: int, act_bytes: int = 2, full_recompute: bool = False) -> float:
    """Narayanan §3.2 / Korthikanti §4.2.2: 8·(t-1)/t·b·s·h·a per layer per micro-batch per rank
    (as the papers count it); 12 with full recomputation. Megatron's SP also re-gathers each
    column-parallel input for its weight gradient (10, not 8): :func:`netlint.fabric.traffic.tp`."""
    if t <= 1:
        return 0.0
    return (12 if full_recompute else 8) * (t - 1) / t * b * s * h * act_bytes


# Pipeline parallel.
def pp_bytes_per_microbatch(b: int, s: int, h: int, act_bytes: int = 2, t: int = 1) -> float:
    """Narayanan §3.2/§4.1: A = b·s·h·a per boundary per direction per micro-batch; /t with
    scatter/gather or sequence parallelism."""
    return b * s * h * act_bytes / max(1, t)


def bubble_ideal(p: int, m: int, v: int = 1) -> float:
    """Narayanan §2.2.1-2.2.2: bubble time / ideal compute time = (p-1)/(v·m)."""
    return 0.0 if p <= 1 else (p - 1) / (v * m)


def bubble_wall(p: int, m: int, v: int = 1) -> float:
    """Share of the step's wall-clock time = (p-1)/(v·m + p-1)."""
    return 0.0 if p <= 1 else (p - 1) / (v * m + p - 1)


# Expert parallel.
def ep_bytes_per_layer(tokens: float, topk: int, h: int, e: int, dispatch_bytes: int = 2,
                       combine_bytes: int = 2) -> float:
    """Four all-to-alls per MoE layer per micro-batch (dispatch + combine, forward + backward;
    DeepEP README): ≈ 2·T·k·h·(a_d + a_c)·(e-1)/e per rank, uniform routing."""
    if e <= 1:
        return 0.0
    return 2 * tokens * topk * h * (dispatch_bytes + combine_bytes) * (e - 1) / e


# Context parallel.
def cp_bytes_per_layer(b: int, s: int, kv_heads: int, head_dim: int, c: int, t: int = 1,
                       act_bytes: int = 2) -> float:
    """Forward all-gather of K and V ≈ (c-1)/c·b·s·2·n_kv·d_head·a/t; backward ≈ 2× that (re-gather
    plus reduce-scatter of dKV) ⇒ 3× per layer per micro-batch per rank
    (TransformerEngine's ring and all-gather variants alike, :func:`netlint.fabric.traffic.cp`)."""
    if c <= 1:
        return 0.0
    fwd = (c - 1) / c * b * s * 2 * kv_heads * head_dim * act_bytes / max(1, t)
    return 3 * fwd


def transfer_time(nbytes: float, gbytes_per_s: float) -> float:
    return nbytes / (gbytes_per_s * 1e9) if gbytes_per_s > 0 else float("inf")
