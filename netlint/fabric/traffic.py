"""Bytes each GPU sends per training step, per parallel dimension and per framework.

Every function returns :class:`Collective` rows: the collective, its group, the bytes one rank sends
per step summed over its calls (nccl-tests ``doc/PERFORMANCE.md`` volumes: 2(n-1)/n·S for an
all-reduce of S, (n-1)/n·S for reduce-scatter / all-gather of the whole array S and for an
all-to-all of the send buffer S), the number of calls (for the latency term), and the compute the
framework can hide it behind (:data:`WINDOWS`). Sources, ``repo@commit path Lnn``:

- **TP** (Megatron-LM@d98e8a64 ``megatron/core/tensor_parallel/layers.py``): without sequence
  parallelism each block (attention, MLP) all-reduces the row-parallel output in forward (L1566)
  and the column-parallel input gradient in backward (L694-696): 2·2(t-1)/t·A per block, 8(t-1)/t·A
  per layer. With SP: forward all-gather of the column-parallel input (L623-629) and reduce-scatter
  of the row-parallel output (L1561-1564); backward all-gather of the output gradient
  (``mappings.py`` L372-377), a **second all-gather of the input for the weight gradient**
  (L666-681) and a reduce-scatter of the input gradient (L700-707): 5(t-1)/t·A per block,
  10(t-1)/t·A per layer (Korthikanti 2022 §4.2.2 counts 8, leaving out the re-gather). Full
  recomputation re-runs each block's forward collectives: +2(t-1)/t·A per block. A = b·(s/c)·h·a.
  The column-parallel backward's re-gather and input-gradient collective are issued ``async_op=True``
  and overlap its GEMMs ("scheduled before the weight gradient computation", L673-681, L694-707);
  the others are on the critical path unless ``--tp-comm-overlap``.
  MoE layers replace the MLP block's collectives by the token dispatcher's (the shared expert is a
  TP-parallel MLP and keeps them).
- **PP**: one tensor of (s/c [/t with SP], b, h) per micro-batch each way between stages
  (``pipeline_parallel/schedules.py`` L2136-2143: divided by TP only when SP is on), ×v interleaved.
- **DP, Megatron**: ``distributed/param_and_grad_buffer.py`` L600-760 reduce-scatters (distributed
  optimizer) or all-reduces the gradient buffer once per step, after the last micro-batch
  (``schedules.py`` L814, L863-870); L383-530 all-gathers parameters (distributed optimizer). Gradient
  dtype fp32 under ``--bf16`` unless ``--grad-reduce-in-bf16`` (``training/arguments.py`` L1204-1217).
  One bucket unless ``--overlap-grad-reduce``, then max(40M, 1M·d) parameters
  (``distributed_data_parallel.py`` L131-137).
- **DP, DeepSpeed** (deepspeedai/DeepSpeed@38327e07): ZeRO-0 all-reduces at the accumulation
  boundary in ``communication_data_type`` (default the fp16/bf16 model dtype; ``runtime/engine.py``
  L939-951, L2048-2062, L2491-2506); ZeRO-1 at the boundary and ZeRO-2 after **every micro-batch**
  (L2052-2054). With ``reduce_scatter: true`` and the default ``use_multi_rank_bucket_allreduce:
  true`` the buckets of all ranks are combined into one **all-reduce**
  (``runtime/zero/stage_1_and_2.py`` L1127-1140 → L1011-1021 → ``dist.all_reduce`` L1510); only with
  ``use_multi_rank_bucket_allreduce: false`` each slice is reduced to its owner (L1142-1146, L1513),
  a reduce-scatter's volume; ``reduce_scatter: false`` all-reduces (L1061-1063). Updated parameters are
  all-gathered after the step (L1930-1934). ZeRO-3 reduce-scatters gradients each micro-batch
  (``stage3.py`` L1372-1391) and all-gathers parameters for forward and again for backward.
  ``overlap_comm`` defaults to true only for ZeRO-3 (``zero/config.py`` L351-354).
- **DP, torchtitan / FSDP2** (pytorch/torchtitan@238fa99): parameters all-gathered in
  ``mixed_precision_param`` (default bf16), gradients reduce-scattered in ``mixed_precision_reduce``
  (fp32) (``config/job_config.py`` L282-293), every micro-batch (``train.py`` L561); parameters are
  re-gathered for backward unless PP is on (``models/llama3/infra/parallelize.py`` L319-327); HSDP
  all-reduces the shards across replicas.
- **EP** (Megatron ``core/transformer/moe/token_dispatcher.py``): ``allgather`` (the default,
  ``transformer_config.py`` L891) all-gathers every token over the TP×EP group and reduce-scatters
  the outputs (L281-300, L355-368); ``alltoall`` sends each token to its k experts (L705-724,
  L864-870), forward and — the backward of a dispatch being a combine — backward; with expert TP it
  also all-gathers / reduce-scatters the received tokens over the expert-TP group (L741-752,
  L824-833); ``flex`` (DeepEP) sends a token once per node it is routed to and forwards it over
  NVLink (deepseek-ai/DeepEP README). Only MoE layers; tokens per rank b·s/(c·t) (MoE with TP needs
  SP, ``moe_layer.py`` L636-640). Forward dispatch in MXFP8 with ``--moe-dispatch-fwd-dtype mxfp8``
  (``transformer_config.py`` L997-1003): 1 byte + one 8-bit scale per 32 elements. Group-limited
  routing (``--moe-router-num-groups/--moe-router-group-topk``, L780-796) caps the nodes a token
  reaches. DeepSpeed MoE pads each expert to ``ceil(k·T/E·capacity_factor)`` tokens
  (``moe/sharded_moe.py`` L161-169, L406) and all-to-alls the padded buffer (L628, L654).
- **CP** (NVIDIA/TransformerEngine@d0067d0d ``pytorch/attention/dot_product_attention/
  context_parallel.py``): ring ``p2p`` passes K/V around the ring in forward and K/V plus dK/dV in
  backward (3(c-1) chunks) and overlaps it with attention compute; ``all_gather`` gathers K/V in
  forward (L3215-3216), again in backward (L3788-3789) and reduce-scatters dK/dV (L4107-4108) — the
  same 3(c-1) chunks, not overlappable (Megatron ``transformer_config.py`` L1030-1045); ``a2a``
  exchanges Q, K, V and the output (Ulysses).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from netlint.fabric.shape import ModelShape

# Which compute a collective can hide behind (seconds come from the step, netlint.fabric.step).
WINDOWS = ("none", "step", "backward", "last-backward", "first-forward", "attention")
MXFP8 = 1 + 1 / 32


@dataclass(frozen=True)
class Split:
    tp: int = 1
    pp: int = 1
    dp: int = 1
    cp: int = 1
    ep: int = 1
    etp: int | None = None          # expert TP; default tp
    vpp: int = 1
    micro_batch: int = 1
    global_batch: int | None = None

    @property
    def world(self) -> int:
        return self.tp * self.pp * self.dp * self.cp

    @property
    def expert_tp(self) -> int:
        return self.etp or self.tp

    @property
    def microbatches(self) -> int | None:
        den = self.micro_batch * self.dp
        if not self.global_batch or not den or self.global_batch % den:
            return None
        return self.global_batch // den


@dataclass(frozen=True)
class Framework:
    """What the framework and its settings decide about traffic (defaults: Megatron's)."""

    name: str = "megatron"
    act_bytes: float = 2
    grad_bytes: float = 4
    param_bytes: float = 2
    sequence_parallel: bool = False
    recompute: str | None = None
    distributed_optimizer: bool = False
    overlap_grad_reduce: bool = False
    overlap_param_gather: bool = False
    tp_comm_overlap: bool = False
    overlap_p2p: bool = True               # Megatron: on unless --no-overlap-p2p-communication (interleaved)
    ddp_bucket: int | None = None
    zero_stage: int | None = None          # DeepSpeed
    ds_reduce: str = "all-reduce"          # all-reduce | reduce (one reduce per owner)
    reduce_bucket: int = 500_000_000
    allgather_bucket: int = 500_000_000
    overlap_comm: bool = False
    fsdp_reshard: bool = True              # torchtitan: re-gather parameters for backward
    fsdp_replicate: int = 1
    moe_dispatcher: str = "alltoall"       # allgather | alltoall | flex | deepspeed
    dispatch_bytes: float = 2
    capacity_factor: float = 1.0
    router_groups: int | None = None
    router_group_topk: int | None = None
    overlap_moe: bool = False
    cp_comm: str = "p2p"                   # p2p | all_gather | a2a

    @property
    def deepspeed(self) -> bool:
        return self.zero_stage is not None


@dataclass(frozen=True)
class Collective:
    dim: str                # TP, CP, PP, DP, EDP, EP, ETP
    kind: str               # all-reduce | reduce-scatter | all-gather | all-to-all | send/recv
    group: int              # ranks in the communicator
    per_rank: float         # bytes one rank sends per step (all calls)
    calls: int              # calls per step
    window: str = "none"    # compute that can hide it (WINDOWS)
    overlap: str = ""       # the setting that turned the overlap on
    fabric: float | None = None   # bytes through the NICs per GPU when not derived from placement
    note: str = ""


@dataclass
class Volumes:
    rows: list[Collective] = field(default_factory=list)

    def add(self, *rows: Collective) -> None:
        self.rows.extend(r for r in rows if r.group > 1 and r.per_rank > 0)


def tp(shape: ModelShape, sp: Split, fw: Framework, mb: int) -> list[Collective]:
    t = sp.tp
    if t <= 1:
        return []
    A = sp.micro_batch * shape.seq / sp.cp * shape.hidden * fw.act_bytes
    f = (t - 1) / t
    stage_layers = shape.layers / sp.pp
    blocks = stage_layers * (1 + shape.dense_layers / shape.layers
                             + (shape.moe_layers / shape.layers if shape.is_moe and shape.shared_ffn else 0))
    extra = 1 if fw.recompute == "full" else 0
    n = blocks * mb
    if fw.tp_comm_overlap:
        w, over, bw, bover = "step", "--tp-comm-overlap", "step", "--tp-comm-overlap"
    else:   # the column-parallel backward's collectives are async behind its GEMMs (L673-681, L694-707)
        w, over, bw, bover = "none", "", "backward", "async backward (layers.py)"
    if fw.sequence_parallel:
        return [Collective("TP", "all-gather", t, (2 + extra) * f * A * n, round((2 + extra) * n), w, over),
                Collective("TP", "reduce-scatter", t, (1 + extra) * f * A * n, round((1 + extra) * n), w, over),
                Collective("TP", "all-gather", t, f * A * n, round(n), bw, bover, note="weight-gradient re-gather"),
                Collective("TP", "reduce-scatter", t, f * A * n, round(n), bw, bover, note="input gradient")]
    return [Collective("TP", "all-reduce", t, (1 + extra) * 2 * f * A * n, round((1 + extra) * n), w, over),
            Collective("TP", "all-reduce", t, 2 * f * A * n, round(n), bw, bover, note="input gradient")]


def pp(shape: ModelShape, sp: Split, fw: Framework, mb: int) -> list[Collective]:
    if sp.pp <= 1:
        return []
    seq = shape.seq / sp.cp / (sp.tp if fw.sequence_parallel else 1)
    per_mb = seq * sp.micro_batch * shape.hidden * fw.act_bytes
    interleaved = sp.vpp > 1 and fw.overlap_p2p and not fw.deepspeed
    return [Collective("PP", "send/recv", sp.pp, 2 * mb * sp.vpp * per_mb, 2 * mb * sp.vpp,
                       "step" if interleaved else "none", "overlap_p2p_comm (interleaved)" if interleaved else "")]


def dp(psi: float, d: int, sp: Split, fw: Framework, mb: int, dim: str = "DP") -> list[Collective]:
    """Data-parallel collectives for ``psi`` parameters held per rank over a group of d."""
    if d <= 1 or psi <= 0:
        return []
    f = (d - 1) / d
    g, w = fw.grad_bytes, fw.param_bytes
    if fw.name == "torchtitan":
        shard = d // max(1, fw.fsdp_replicate)
        gathers = 2 if fw.fsdp_reshard else 1
        fs = (shard - 1) / shard if shard > 1 else 0.0
        rows = [Collective(dim, "all-gather", shard, gathers * fs * psi * w * mb, gathers * mb, "step", "FSDP prefetch"),
                Collective(dim, "reduce-scatter", shard, fs * psi * g * mb, mb, "backward", "FSDP")]
        r = fw.fsdp_replicate
        if r > 1:
            rows.append(Collective(dim, "all-reduce", r, 2 * (r - 1) / r * psi / shard * g * mb, mb, "backward", "FSDP"))
        return rows
    if fw.deepspeed:
        return _deepspeed(psi, d, fw, mb, dim)
    bucket = (fw.ddp_bucket or max(40_000_000, 1_000_000 * d)) if fw.overlap_grad_reduce else psi
    calls = max(1, math.ceil(psi / bucket))
    gw = "last-backward" if fw.overlap_grad_reduce else "none"
    go = "--overlap-grad-reduce" if fw.overlap_grad_reduce else ""
    if not fw.distributed_optimizer:
        return [Collective(dim, "all-reduce", d, 2 * f * psi * g, calls, gw, go)]
    pw = "first-forward" if fw.overlap_param_gather else "none"
    return [Collective(dim, "reduce-scatter", d, f * psi * g, calls, gw, go),
            Collective(dim, "all-gather", d, f * psi * w, calls, pw, "--overlap-param-gather" if fw.overlap_param_gather else "")]


def _deepspeed(psi: float, d: int, fw: Framework, mb: int, dim: str) -> list[Collective]:
    f = (d - 1) / d
    g, w, z = fw.grad_bytes, fw.param_bytes, fw.zero_stage or 0
    times = mb if z >= 2 else 1
    calls = max(1, math.ceil(psi / max(1, fw.reduce_bucket))) * times
    over = "overlap_comm" if fw.overlap_comm else ""
    if z == 3:
        return [Collective(dim, "all-gather", d, 2 * f * psi * w * mb, 2 * mb * max(1, math.ceil(psi / 5e7)), "step",
                           "ZeRO-3 prefetch"),
                Collective(dim, "reduce-scatter", d, f * psi * g * mb, calls, "backward" if fw.overlap_comm else "none", over)]
    window = ("backward" if z == 2 else "last-backward") if fw.overlap_comm else "none"
    if z >= 1 and fw.ds_reduce == "reduce":
        grads = Collective(dim, "reduce-scatter", d, f * psi * g * times, calls, window, over, note="reduce to owner")
    else:
        grads = Collective(dim, "all-reduce", d, 2 * f * psi * g * times, calls, window, over)
    if z == 0:
        return [grads]
    ag_calls = max(1, math.ceil(psi / max(1, fw.allgather_bucket)))
    return [grads, Collective(dim, "all-gather", d, f * psi * w, ag_calls)]


def remote_nodes(experts: int, topk: int, nodes: int, groups: int | None = None, group_topk: int | None = None) -> float:
    """Expected distinct *other* nodes a token's top-k experts sit on, experts spread evenly over
    ``nodes`` and chosen uniformly — among ``group_topk`` of ``groups`` groups when routing is
    group-limited (groups a multiple of nodes) [derived: hypergeometric counting]."""
    if nodes <= 1 or experts <= 0:
        return 0.0
    G, M = (groups, group_topk) if groups and group_topk and groups % nodes == 0 and group_topk < groups else (nodes, nodes)
    g = G // nodes                      # groups per node
    allowed = M * experts // G          # experts a token may choose from
    per_group = experts // G
    k = min(topk, allowed)
    hit = 0.0
    for j in range(1, min(g, M) + 1):   # j of the node's groups selected
        p_j = math.comb(g, j) * math.comb(G - g, M - j) / math.comb(G, M)
        hit += p_j * (1 - math.comb(allowed - j * per_group, k) / math.comb(allowed, k))
    return nodes * hit * (nodes - 1) / nodes


def ep(shape: ModelShape, sp: Split, fw: Framework, mb: int, ranks_per_node: int) -> list[Collective]:
    if not shape.is_moe:
        return []
    e, et = sp.ep, sp.expert_tp
    layers = shape.moe_layers / sp.pp
    T = sp.micro_batch * shape.seq / (sp.cp * sp.tp)
    h, a, k = shape.hidden, fw.act_bytes, shape.topk
    over = "step" if fw.overlap_moe else "none"
    label = "--overlap-moe-expert-parallel-comm" if fw.overlap_moe else ""
    rows: list[Collective] = []
    if fw.moe_dispatcher == "allgather":
        n = et * e
        if n > 1:
            per = 2 * (n - 1) * T * h * a * layers * mb
            rows += [Collective("EP", "all-gather", n, per, round(2 * layers * mb), over, label, note="allgather dispatcher"),
                     Collective("EP", "reduce-scatter", n, per, round(2 * layers * mb), over, label,
                                note="allgather dispatcher")]
        return rows
    if e > 1:
        cf = fw.capacity_factor if fw.moe_dispatcher == "deepspeed" else 1.0
        copies = cf * k * (e - 1) / e
        per = T * h * copies * (fw.dispatch_bytes + 3 * a) * layers * mb
        fabric = None
        if fw.moe_dispatcher == "flex":
            nodes = max(1, math.ceil(e * et / max(1, ranks_per_node)))
            fabric = T * h * (fw.dispatch_bytes + 3 * a) * layers * mb * remote_nodes(
                shape.experts, k, nodes, fw.router_groups, fw.router_group_topk)
        rows.append(Collective("EP", "all-to-all", e, per, round(4 * layers * mb), over, label, fabric=fabric,
                               note=f"{fw.moe_dispatcher} dispatcher"))
    if et > 1 and fw.moe_dispatcher in ("alltoall", "flex"):
        per = 2 * (et - 1) * T * k * h * a * layers * mb
        rows += [Collective("ETP", "all-gather", et, per, round(2 * layers * mb)),
                 Collective("ETP", "reduce-scatter", et, per, round(2 * layers * mb))]
    return rows


def cp(shape: ModelShape, sp: Split, fw: Framework, mb: int) -> list[Collective]:
    c = sp.cp
    if c <= 1:
        return []
    layers = shape.layers / sp.pp
    local = sp.micro_batch * shape.seq / c * fw.act_bytes / sp.tp
    kv = local * shape.kv_width()
    if fw.cp_comm == "a2a":
        per = 2 * (c - 1) / c * local * (2 * shape.q_width() + shape.kv_width()) * layers * mb
        return [Collective("CP", "all-to-all", c, per, round(8 * layers * mb))]
    if fw.cp_comm == "all_gather":
        return [Collective("CP", "all-gather", c, 2 * (c - 1) * kv * layers * mb, round(2 * layers * mb)),
                Collective("CP", "reduce-scatter", c, (c - 1) * kv * layers * mb, round(layers * mb))]
    return [Collective("CP", "send/recv", c, 3 * (c - 1) * kv * layers * mb, round(3 * (c - 1) * layers * mb),
                       "attention", "ring attention (p2p)")]
