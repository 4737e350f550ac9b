"""The per-job traffic model (research/modeling.md §1.4-§1.11) placed on the inventory.

:func:`analyze` returns a :class:`JobModel`: parameters, model FLOPs and step time at an MFU, the
pipeline bubble (both definitions), and one :class:`Traffic` row per collective of each parallel
dimension: group size, whether the group stays in an NVLink domain (placement), bytes each GPU sends
per step, the share of them that leaves the node through its NICs, and the time at the available
bandwidth. Required NIC bandwidth = Σ fabric bytes per GPU / step time (§1.11: infeasible even with
perfect overlap when larger than what the NIC carries).

MFU: ``mfu`` in netlint's settings, default :data:`DEFAULT_MFU` = 0.40 — the low end of what
Megatron-LM reports on H100 ("MFU increases from 41% to 47-48%", R24) and ≈ the model-FLOPs MFU of
Megatron 2021 Table 1 (≈0.75 × 52% ≈ 39% for R10, §3.A). A higher MFU makes the step shorter and
the bandwidth requirement larger.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from netlint import hardware
from netlint.fabric import formulas as F
from netlint.fabric import placement as P
from netlint.models.job import TrainingJob

DEFAULT_MFU = 0.40


@dataclass
class Traffic:
    dimension: str          # TP, CP, PP, DP, EP, EDP
    collective: str         # all-reduce, reduce-scatter, all-gather, all-to-all, send/recv
    group_size: int
    link: str               # nvlink | fabric
    bytes_per_gpu: float    # bytes each GPU sends per step (§1.2 volumes)
    fabric_bytes_per_gpu: float  # per-GPU share of the node's NIC egress (§1.4); 0 inside NVLink
    nodes_spanned: int
    critical: bool          # on the critical path (TP, CP, EP) vs overlappable (DP, PP)
    time_s: float | None = None
    share: float | None = None

    def as_dict(self) -> dict:
        return {"dimension": self.dimension, "collective": self.collective, "group_size": self.group_size,
                "link": self.link, "bytes_per_gpu": round(self.bytes_per_gpu),
                "fabric_bytes_per_gpu": round(self.fabric_bytes_per_gpu),
                "nodes_spanned": self.nodes_spanned,
                "time_s": None if self.time_s is None else round(self.time_s, 6),
                "share_of_step": None if self.share is None else round(self.share, 4)}


@dataclass
class JobModel:
    job: TrainingJob
    world: int | None = None
    parallel: dict[str, int | None] = field(default_factory=dict)
    microbatches: int | None = None
    params: float | None = None
    step_flops: float | None = None
    step_time_s: float | None = None
    mfu: float = DEFAULT_MFU
    gpu: str | None = None
    domain: int | None = None           # GPUs per NVLink domain
    gpus_per_node: int | None = None    # ranks per host
    nvlink_gbps: float | None = None    # achievable per GPU per direction
    nic_gbps_per_gpu: float | None = None   # achievable NIC bandwidth per GPU (node aggregate / GPUs)
    nic_line_gbit: float | None = None  # line rate of one NIC
    nic_count: int | None = None
    transport: str | None = None
    oversubscription: float | None = None
    bubble_ideal: float | None = None
    bubble_wall: float | None = None
    traffic: list[Traffic] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    vocab_assumed_zero: bool = False

    @property
    def required_nic_gbps(self) -> float | None:
        if not self.step_time_s:
            return None
        total = sum(t.fabric_bytes_per_gpu for t in self.traffic)
        return total / self.step_time_s / 1e9

    def rows(self, dimension: str) -> list[Traffic]:
        return [t for t in self.traffic if t.dimension == dimension]

    @property
    def nic_label(self) -> str:
        if self.nic_line_gbit is None:
            return "the NIC"
        g = f"{self.nic_line_gbit:g}"
        if self.transport == "efa":
            return f"{g}G EFA"
        return f"{g}GbE" if self.transport in ("roce", "ethernet") else f"{g}G InfiniBand"


def node_shape(inventory) -> dict[str, Any] | None:
    """GPUs per node, NVLink domain, GPU, NIC figures of the inventory's (first) node group."""
    if inventory is None or not inventory.node_groups:
        return None
    g = inventory.node_groups[0]
    gpu = g.hardware
    speeds = [hardware.link_gbit(n.speed.value) for n in g.nics]
    speeds = [s for s in speeds if s]
    return {"gpus": g.gpus.value, "domain": g.domain, "gpu": gpu, "nodes": sum(x.count.value for x in inventory.node_groups),
            "nic_gbit": speeds, "transport": inventory.transport,
            "oversubscription": inventory.fabric.oversubscription.value if inventory.fabric.oversubscription else None}


def _bytes(dtype: str | None) -> int:
    return 4 if dtype == "fp32" else 2


def param_count(job: TrainingJob) -> tuple[float | None, float]:
    """(dense parameters, expert parameters). Eq. 2 of Narayanan 2021 for the classic GPT shape
    (ffn = 4h, no GQA/SwiGLU/MoE); otherwise a per-matrix count (QKV, projection, MLP × experts,
    embeddings)."""
    L, h = job.int("layers"), job.int("hidden")
    if L is None or h is None:
        return None, 0.0
    V = job.int("vocab") or 0
    s = job.int("seq_len") or 0
    heads = job.int("heads") or 1
    groups = job.int("query_groups") or heads
    ffn = job.int("ffn") or 4 * h
    experts = job.int("experts") or 0
    swiglu = job.flag("swiglu")
    if ffn == 4 * h and groups == heads and not swiglu and experts <= 1:
        return F.params_megatron(L, h, V, s), 0.0
    kv = groups * (h // heads)
    attn = h * (h + 2 * kv) + h * h
    mlp = (3 if swiglu else 2) * h * ffn
    dense = L * (attn + 4 * h) + 2 * V * h
    expert = L * mlp * experts if experts > 1 else 0.0
    if experts <= 1:
        dense += L * mlp
    return dense, expert


def analyze(job: TrainingJob, inventory=None, mfu: float | None = None) -> JobModel:
    m = JobModel(job=job, mfu=mfu or DEFAULT_MFU)
    tp, pp, cp, ep = (job.int(n) or 1 for n in ("tp", "pp", "cp", "ep"))
    etp = job.int("etp") or tp
    dp = job.int("dp")
    world = job.int("world_size")
    m.world = world
    vpp = job.int("vpp") or 1
    m.parallel = {"tp": tp, "pp": pp, "dp": dp, "cp": cp, "ep": ep, "etp": etp, "vpp": vpp}
    b, gbs = job.int("micro_batch"), job.int("global_batch")
    if dp and b and gbs and gbs % (b * dp) == 0:
        m.microbatches = gbs // (b * dp)
    elif job.int("grad_accum"):
        m.microbatches = job.int("grad_accum")
    if pp > 1 and m.microbatches:
        m.bubble_ideal = F.bubble_ideal(pp, m.microbatches, vpp)
        m.bubble_wall = F.bubble_wall(pp, m.microbatches, vpp)
    dense, expert = param_count(job)
    if dense is not None:
        m.params = dense + expert
    shape = node_shape(inventory)
    if shape is not None:
        gpu = shape["gpu"]
        m.gpu = gpu.name
        m.domain = shape["domain"]
        m.gpus_per_node = job.int("gpus_per_node") or shape["gpus"]
        m.nvlink_gbps = gpu.nvlink_effective
        m.transport = shape["transport"]
        m.oversubscription = shape["oversubscription"]
        if shape["nic_gbit"]:
            m.nic_line_gbit = max(shape["nic_gbit"])
            m.nic_count = len(shape["nic_gbit"])
            node_bw = sum(g / 8 for g in shape["nic_gbit"]) * hardware.NIC_ACHIEVABLE_FRACTION
            m.nic_gbps_per_gpu = node_bw / max(1, shape["gpus"])
    # compute side (§1.5)
    L, h, s = job.int("layers"), job.int("hidden"), job.int("seq_len")
    V = job.int("vocab")
    if V is None:
        V, m.vocab_assumed_zero = 0, True
    if L and h and s and gbs:
        heads = job.int("heads") or 1
        groups = job.int("query_groups") or heads
        ffn = job.int("ffn") or 4 * h
        topk = job.int("topk") or 1 if (job.int("experts") or 0) > 1 else 1
        if ffn == 4 * h and groups == heads and not job.flag("swiglu") and topk == 1:
            m.step_flops = F.model_flops(gbs, s, L, h, V)
        else:
            m.step_flops = F.model_flops_general(gbs, s, L, h, V, heads, groups, ffn, job.flag("swiglu"), topk)
    else:
        m.missing.append("model shape or global batch")
    if m.step_flops and world and shape is not None:
        m.step_time_s = F.step_time(m.step_flops, world, shape["gpu"].bf16_dense_tflops, m.mfu)
    if not (dp and world and L and h and s and b and m.microbatches):
        m.missing.append("parallel sizes, world size or batch")
        return m
    a = _bytes(job.value("dtype"))
    mb = m.microbatches
    layers_per_stage = L / pp
    seq_local = s / cp
    domain = m.domain or job.int("gpus_per_node") or world
    groups = P.dense_groups(tp, cp, dp, pp)

    def add(dim: str, coll: str, group: P.Group, per_rank: float, buffer: float, critical: bool) -> None:
        if group.size <= 1 or per_rank <= 0:
            return
        n_dom = P.domains_spanned(group, domain)
        r = P.ranks_per_domain(group, domain)
        link = "nvlink" if n_dom <= 1 else "fabric"
        if m.domain is None:  # no inventory: only whether the group leaves the node is known
            link = "intra-node" if n_dom <= 1 else "inter-node"
        if link in ("nvlink", "intra-node"):
            fabric = 0.0
        elif coll == "all-reduce":
            fabric = F.allreduce_bytes(buffer, n_dom) / r * (per_rank / F.allreduce_bytes(buffer, group.size))
        elif coll == "all-to-all":
            fabric = per_rank * (group.size - r) / (group.size - 1)
        elif coll == "send/recv":
            fabric = per_rank
        else:  # reduce-scatter / all-gather, hierarchical (§1.4)
            base = F.reduce_scatter_bytes(buffer, group.size)
            fabric = F.reduce_scatter_bytes(buffer, n_dom) / r * (per_rank / base) if base else 0.0
        t = Traffic(dim, coll, group.size, link, per_rank, fabric, n_dom, critical)
        bw = m.nvlink_gbps if link == "nvlink" else m.nic_gbps_per_gpu
        if bw:
            t.time_s = (per_rank if link == "nvlink" else fabric) / (bw * 1e9)
            if m.step_time_s:
                t.share = t.time_s / m.step_time_s
        m.traffic.append(t)

    # TP (§1.7): 4 all-reduces of A per layer per micro-batch (6 with full recompute)
    A = b * seq_local * h * a
    n_ar = 6 if job.value("recompute") == "full" else 4
    per_tp = F.tp_bytes_per_layer(b, int(seq_local), h, tp, a, n_ar == 6) * layers_per_stage * mb
    add("TP", "all-reduce", groups["tp"], per_tp, A * n_ar * layers_per_stage * mb, True)
    # CP (§1.10)
    heads = job.int("heads") or 1
    kvh = job.int("query_groups") or heads
    per_cp = F.cp_bytes_per_layer(b, s, kvh, h // heads, cp, tp, a) * layers_per_stage * mb
    add("CP", "all-gather", groups["cp"], per_cp, per_cp * cp / max(1, cp - 1), True)
    # PP (§1.8): activations forward + gradients backward per micro-batch, ×v with interleaving
    if pp > 1:
        per_pp = 2 * mb * vpp * F.pp_bytes_per_microbatch(b, int(seq_local), h, a, tp)
        add("PP", "send/recv", groups["pp"], per_pp, per_pp, False)
    # EP (§1.9)
    experts = job.int("experts") or 0
    if ep > 1 and experts > 1:
        topk = job.int("topk") or 2
        tokens = b * seq_local / (tp if job.flag("sequence_parallel") else 1)
        per_ep = F.ep_bytes_per_layer(tokens, topk, h, ep, a, a) * layers_per_stage * mb
        eg = P.expert_groups(etp, ep, pp, world)
        add("EP", "all-to-all", eg["ep"], per_ep, per_ep, True)
    # DP (§1.6)
    scheme, g, w = _dp_scheme(job)
    psi_dense = (dense or 0.0) / (tp * pp)
    for coll, nbytes in F.dp_bytes(psi_dense, dp, scheme, g, w, mb).items():
        buf = psi_dense * (g if coll != "all-gather" else w)
        add("DP", coll, groups["dp"], nbytes, buf * (mb if scheme in ("zero2", "zero3") else 1), False)
    if expert:
        edp = max(1, world // (etp * ep * pp))
        psi_e = expert / (etp * ep * pp)
        eg = P.expert_groups(etp, ep, pp, world)
        for coll, nbytes in F.dp_bytes(psi_e, edp, scheme, g, w, mb).items():
            buf = psi_e * (g if coll != "all-gather" else w)
            add("EDP", coll, eg["edp"], nbytes, buf, False)
    return m


def _dp_scheme(job: TrainingJob) -> tuple[str, int, int]:
    dtype = job.value("dtype")
    w = 4 if dtype == "fp32" else 2
    if job.framework in ("megatron", "nemo"):
        # bf16 turns on fp32 gradient all-reduce unless --grad-reduce-in-bf16 (jobs.md §1d #27)
        g = 4 if dtype in ("bf16", "fp8", "fp32") and not job.flag("grad_reduce_in_bf16") else 2
        return ("distopt" if job.flag("distributed_optimizer") else "allreduce"), g, w
    stage = job.int("zero_stage") or 0
    cfg = job.ds_config
    comm = cfg.value("communication_data_type") if cfg is not None else None
    g = {"fp32": 4, "fp16": 2, "bf16": 2}.get(comm, 4 if dtype == "fp32" else 2)
    if job.framework == "torchtitan":
        return "zero3", 4, w
    return {0: "allreduce", 1: "zero1", 2: "zero2", 3: "zero3"}.get(stage, "allreduce"), g, w


def job_models(ws) -> dict[int, JobModel]:
    """Models of every TrainingJob of the workspace, computed once (``ws.derived``)."""
    from netlint.models.job import training_jobs

    def compute(ws) -> dict[int, JobModel]:
        mfu = ws.config.settings.mfu
        return {id(j): analyze(j, ws.inventory, mfu) for j in training_jobs(ws)}

    return ws.derived("fabric.job_models", compute)
