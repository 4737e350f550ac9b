"""Memory per GPU of a layout: weights, gradients and optimizer state, and activations — on the most
loaded rank (the first pipeline stage: it holds the word embedding and the most micro-batches in flight).

**Weights, gradients, optimizer state** (bytes per parameter held by the rank):

- Megatron-LM (NVIDIA/Megatron-LM@d98e8a64 ``docs/user-guide/features/dist_optimizer.md`` L14-20):
  fp16 parameters + fp16 gradients 20, bf16 + fp32 gradients 18, fp32 + fp32 16; with
  ``--use-distributed-optimizer`` 4 + 16/d, 6 + 12/d, 8 + 8/d. netlint writes this as parameter bytes +
  main-gradient bytes + an fp32 part (Adam's two moments, 8; fp32 main parameters, 4, when the model
  is 16-bit; an fp32 copy of 16-bit main gradients, 4) that the distributed optimizer shards over the
  data-parallel group — DP×CP for dense parameters (``core/distributed/distributed_data_parallel.py``
  L148-149, the ``dp_cp`` group), the expert-data-parallel group world/(ETP·EP·PP) for routed experts
  (``megatron/training/theoretical_memory_usage.py`` L205-212, L298-303).
- DeepSpeed ZeRO (Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter
  Models", SC'20, arXiv:1910.02054, §3.1 and §5.1, Fig. 1): mixed-precision Adam keeps 2Ψ + 2Ψ + KΨ
  with K = 12; stage 1 shards the K part over N_d (4 + 12/N_d), stage 2 the gradients too
  (2 + 14/N_d), stage 3 everything (16/N_d). fp32 models: 4 + 4 + 8. A bf16 model without ZeRO runs
  DeepSpeed's BF16_Optimizer: fp32 gradients, master weights and Adam sharded over DP, 6 + 12/d
  (deepspeedai/DeepSpeed@38327e07 ``deepspeed/runtime/engine.py`` L1010-1025, L1346-1348;
  ``deepspeed/runtime/bf16_optimizer.py`` L147-165).
- torchtitan FSDP2 (pytorch/torchtitan@238fa99 ``torchtitan/config/job_config.py`` L282-293): fp32
  sharded parameters, fp32 gradients and Adam's moments, all sharded over dp_shard×CP (16/d), plus the
  bf16 parameters of the layer being computed and of the one prefetched (two layers, unsharded).

Parameters per rank follow Megatron's "most loaded model shard" (``theoretical_memory_usage.py``
L247-267): transformer parameters / PP / TP, the word (and learned position) embedding / TP on the
first stage, a second V×h / TP when the output layer is untied and PP = 1, routed experts / (PP·ETP·EP).

**Activations** per layer and micro-batch follow Korthikanti et al., "Reducing Activation
Recomputation in Large Transformer Models" (arXiv:2205.05198), §4.1 eq. 1 and Table 2 — sbh(34 +
5as/h) with no parallelism, sbh(10 + 24/t + 5as/(ht)) with TP, sbh/t·(34 + 5as/h) with TP + SP, the
5as/h term dropped by selective recomputation, 2sbh with full recomputation — itemised so that GQA,
the FFN size, gated MLPs and MoE layers change the items they touch: 10sbh of layer-norm inputs, the
QKV and first-linear inputs and two dropout masks (split by t only with SP); Q, K, V and the
projection input (8sbh for MHA; K and V scale with the query groups); the MLP's activation and
second-linear inputs (2sbF each, the first doubled when gated; 16sbh for F = 4h); 5as²b of attention
scores. The scores are not stored by fused/flash attention (Dao et al., "FlashAttention", arXiv:
2205.14135, §3.1: O(N) extra memory), which Megatron picks by default (``attention_backend`` auto,
``core/transformer/transformer_config.py`` L151); for the DeepSpeed family they are counted. A MoE
layer's MLP part holds top-k copies of the rank's tokens (uniform routing): the permuted input and the
expert's activation and second-linear inputs, plus the shared expert as a dense MLP. Full
recomputation keeps each layer's input (2sbh, /t with SP, Table 2) plus one layer's activations while
it is recomputed. Mask bytes stay 1; the other items scale with the activation dtype (the paper's 2).
Context parallelism divides s. The first stage keeps min(p, m) micro-batches of its L/p layers (1F1B,
§4.2.3; ``theoretical_memory_usage.py`` L357-362), × (1 + (p−1)/(p·v)) interleaved (§4.2.3; L341-355);
plus the embedding's dropout mask for p micro-batches and, with p = 1, the output layer's 4sbh/t(1 +
V/h) (§4.3). Megatron adds 5% for temporaries (``theoretical_memory_usage.py`` L449-451); so does netlint.

A layout fits when the total is within :data:`USABLE_FRACTION` of the GPU's memory (netlint's margin for
the CUDA context, NCCL buffers and allocator fragmentation; not a framework figure).
"""

from __future__ import annotations

from dataclasses import dataclass

from netlint.fabric import shape as S
from netlint.fabric.traffic import Framework, Split

USABLE_FRACTION = 0.90
TEMPORARIES = 1.05          # theoretical_memory_usage.py L449-451


@dataclass(frozen=True)
class Memory:
    """Bytes per GPU on the most loaded rank."""

    weights: float
    gradients: float
    optimizer: float
    activations: float
    capacity: float             # the GPU's memory (bytes)
    usable: float = USABLE_FRACTION

    @property
    def states(self) -> float:
        return self.weights + self.gradients + self.optimizer

    @property
    def total(self) -> float:
        return self.states + self.activations

    @property
    def limit(self) -> float:
        return self.capacity * self.usable

    @property
    def fits(self) -> bool:
        return self.total <= self.limit

    def as_dict(self) -> dict:
        gb = lambda v: round(v / 1e9, 2)  # noqa: E731
        return {"weights_gb": gb(self.weights), "gradients_gb": gb(self.gradients),
                "optimizer_gb": gb(self.optimizer), "activations_gb": gb(self.activations),
                "total_gb": gb(self.total), "usable_gb": gb(self.limit), "gpu_gb": gb(self.capacity),
                "fits": self.fits}


# ---- weights, gradients, optimizer state --------------------------------------------------------

def megatron_bytes(param_bytes: float, grad_bytes: float, distributed: bool, d: int) -> tuple[float, float, float]:
    """(weights, gradients, optimizer) bytes per parameter (dist_optimizer.md L14-20)."""
    fp32 = 8 + (4 if param_bytes < 4 else 0) + (4 if grad_bytes < 4 else 0)
    return param_bytes, grad_bytes, fp32 / (max(1, d) if distributed else 1)


def zero_bytes(stage: int, d: int, fp32: bool = False) -> tuple[float, float, float]:
    """(weights, gradients, optimizer) bytes per parameter under ZeRO stage 0-3 over N_d = d (ZeRO §5.1)."""
    w, g, k = (4.0, 4.0, 8.0) if fp32 else (2.0, 2.0, 12.0)
    d = max(1, d)
    if stage >= 3:
        return w / d, g / d, k / d
    if stage == 2:
        return w, g / d, k / d
    if stage == 1:
        return w, g, k / d
    return w, g, k


def fsdp_bytes(d: int) -> tuple[float, float, float]:
    """torchtitan FSDP2: fp32 parameter, gradient and two Adam moments, sharded over d."""
    d = max(1, d)
    return 4 / d, 4 / d, 8 / d


@dataclass(frozen=True)
class Shard:
    """Parameters on the most loaded rank: ``dense`` (replicated over DP) and ``expert`` (over EDP)."""

    dense: float
    expert: float
    layer: float               # one transformer layer's parameters on the rank (FSDP's gathered copy)


def shard(shape: S.ModelShape, sp: Split) -> Shard:
    """theoretical_memory_usage.py L247-267: first stage, TP- and EP-sharded."""
    p = S.params(shape)
    word = shape.vocab * shape.hidden
    emb_first = word + shape.position * shape.hidden
    body = p.total - p.expert - p.embedding
    dense = (body / sp.pp + emb_first) / sp.tp
    if not shape.tied and sp.pp == 1:
        dense += word / sp.tp
    expert = p.expert / (sp.pp * sp.expert_tp * sp.ep)
    layer = (body + p.expert / max(1, sp.ep)) / shape.layers / sp.tp
    return Shard(dense, expert, layer)


def states(shape: S.ModelShape, sp: Split, fw: Framework, bf16: bool = False) -> tuple[float, float, float]:
    """(weights, gradients, optimizer) bytes on the most loaded rank; ``bf16``: the model is bf16 (DeepSpeed
    then runs its BF16_Optimizer without ZeRO)."""
    sh = shard(shape, sp)
    dp_dense = sp.dp * sp.cp
    edp = max(1, sp.world // (sp.expert_tp * sp.ep * sp.pp))
    if fw.name == "torchtitan":
        rep = max(1, fw.fsdp_replicate)
        a, b = fsdp_bytes(max(1, dp_dense // rep)), fsdp_bytes(max(1, edp // rep))
        w, g, o = (sh.dense * x + sh.expert * y for x, y in zip(a, b))
        return w + 2 * sh.layer * fw.param_bytes, g, o     # + this layer and the prefetched one, bf16
    if fw.deepspeed and bf16 and not fw.zero_stage:
        # bf16 without ZeRO accumulates gradients in fp32 (runtime/engine.py L1017-1019) and runs the
        # BF16_Optimizer (L1346-1348), which shards the fp32 master weights and Adam over DP
        # (runtime/bf16_optimizer.py L147-165): bf16 params, fp32 gradients, 12/d — as Megatron's.
        a = megatron_bytes(2, 4, True, dp_dense)
        b = megatron_bytes(2, 4, True, edp)
    elif fw.deepspeed:
        fp32 = fw.param_bytes >= 4
        a, b = zero_bytes(fw.zero_stage or 0, dp_dense, fp32), zero_bytes(fw.zero_stage or 0, edp, fp32)
    else:
        a = megatron_bytes(fw.param_bytes, fw.grad_bytes, fw.distributed_optimizer, dp_dense)
        b = megatron_bytes(fw.param_bytes, fw.grad_bytes, fw.distributed_optimizer, edp)
    return tuple(sh.dense * x + sh.expert * y for x, y in zip(a, b))  # type: ignore[return-value]


# ---- activations --------------------------------------------------------------------------------

def layer_activations(shape: S.ModelShape, b: int, t: int, *, cp: int = 1, sp: bool = False,
                      recompute: str | None = None, flash: bool = True, moe: bool = False,
                      act: float = 2.0) -> float:
    """Bytes one layer keeps for backward, per micro-batch of b sequences, on one rank (Korthikanti
    §4.1, Table 2, itemised; see the module docstring)."""
    s = shape.seq / cp
    h = shape.hidden
    sb = s * b
    split = t if sp else 1
    if recompute == "full":
        return act / 2 * 2 * sb * h / split                        # Table 2: sbh(2), /t with SP
    a2 = act / 2
    replicated = sb * h * (8 * a2 + 2)                            # LN inputs 4, QKV input 2, fc1 input 2, masks 2
    if shape.mla is not None:
        m = shape.mla
        qk, v = shape.heads * (m.qk_head_dim + m.rope_dim), shape.heads * m.v_head_dim
        attn = sb * act * (2 * qk + 2 * v)                         # Q, K, V, projection input
    else:
        attn = sb * act * (2 * shape.q_width() + 2 * shape.groups * shape.d)
    gate = 2 if shape.gated else 1
    if moe:
        f = shape.expert_ffn
        mlp = shape.topk * sb * act * (h + f * gate + f)           # permuted input, act input, fc2 input
        if shape.shared_ffn:
            mlp += sb * act * shape.shared_ffn * (gate + 1)
    else:
        f = shape.dense_ffn
        mlp = sb * act * f * (gate + 1)
    scores = 0.0
    if not flash and recompute != "selective":
        scores = shape.heads * s * shape.seq * b * (2 * act + 1)   # softmax, dropout mask and output: 5as²b
    return replicated / split + (attn + mlp + scores) / t


def in_flight(pp: int, microbatches: int, vpp: int = 1) -> float:
    """Micro-batches' worth of the first stage's layers it holds at once, as a multiple of one stage's
    layers × p: 1F1B min(1, m/p); interleaved 1 + (p−1)/(p·v) (Korthikanti §4.2.3)."""
    if pp <= 1:
        return 1.0
    if vpp > 1:
        return 1 + (pp - 1) / (pp * vpp)
    return min(1.0, microbatches / pp)


def activations(shape: S.ModelShape, sp: Split, fw: Framework, flash: bool = True) -> float:
    """Activation bytes on the first pipeline stage (all micro-batches in flight)."""
    mb = sp.microbatches or 1
    t, b, p = sp.tp, sp.micro_batch, sp.pp
    seq_par = fw.sequence_parallel and t > 1
    kw = dict(cp=sp.cp, sp=seq_par, recompute=fw.recompute, flash=flash, act=fw.act_bytes)
    dense = layer_activations(shape, b, t, **kw)
    moe = layer_activations(shape, b, t, moe=True, **kw) if shape.is_moe else 0.0
    per_layer_avg = (dense * shape.dense_layers + moe * (shape.moe_layers if shape.is_moe else 0)) / shape.layers
    # L layers' worth when p micro-batches of L/p layers are in flight (Korthikanti eq. 5)
    total = per_layer_avg * shape.layers * in_flight(p, mb, sp.vpp)
    if fw.recompute == "full":      # one layer's activations live while it is recomputed
        total += layer_activations(shape, b, t, cp=sp.cp, sp=seq_par, flash=flash, act=fw.act_bytes,
                                   moe=shape.is_moe)
    s, h = shape.seq / sp.cp, shape.hidden
    total += s * b * h * min(p, mb) / t + 8 * s * b * min(p, mb)      # embedding dropout mask, input ids (§4.3)
    if p == 1:
        total += 4 * s * b * h / t * (1 + shape.vocab / h)              # final LN, output input, fp32 logits
    return total * TEMPORARIES


def per_gpu(shape: S.ModelShape, sp: Split, fw: Framework, gpu_gb: float, flash: bool = True,
            usable: float = USABLE_FRACTION, bf16: bool = False) -> Memory:
    w, g, o = states(shape, sp, fw, bf16)
    return Memory(w, g, o, activations(shape, sp, fw, flash), gpu_gb * 1e9, usable)
