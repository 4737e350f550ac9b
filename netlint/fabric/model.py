"""The job's model placed on the inventory: :func:`analyze` turns a TrainingJob (and the cluster
inventory) into a :class:`JobModel` — shape, parameters, FLOPs, the step in time and one
:class:`Traffic` row per collective — by calling the pure :func:`netlint.fabric.step.evaluate` with
what :mod:`netlint.fabric.settings` reads from the job. :func:`job_models` caches them per workspace.

Without an inventory the shape, parameters and FLOPs are still known; links and times are not.
``mfu`` (netlint setting, default :data:`DEFAULT_MFU`) is the compute efficiency of the step model.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from netlint.fabric import formulas as F
from netlint.fabric import settings as C
from netlint.fabric import shape as S
from netlint.fabric import step as ST
from netlint.fabric.traffic import Split
from netlint.models.job import TrainingJob

DEFAULT_MFU = 0.40
node_shape = C.node_shape


@dataclass
class Traffic:
    dimension: str          # TP, CP, PP, DP, EDP, EP, ETP
    collective: str         # all-reduce, reduce-scatter, all-gather, all-to-all, send/recv
    group_size: int
    link: str               # nvlink | fabric (intra-node | inter-node without an inventory)
    bytes_per_gpu: float    # bytes each GPU sends per step
    fabric_bytes_per_gpu: float  # per-GPU share of the node's NIC egress; 0 inside NVLink
    nodes_spanned: int
    critical: bool          # no compute window can hide it
    calls: int = 0
    algorithm: str = "-"
    window: str = "none"
    time_s: float | None = None
    share: float | None = None   # of the compute time

    def as_dict(self) -> dict:
        return {"dimension": self.dimension, "collective": self.collective, "group_size": self.group_size,
                "link": self.link, "bytes_per_gpu": round(self.bytes_per_gpu),
                "fabric_bytes_per_gpu": round(self.fabric_bytes_per_gpu), "nodes_spanned": self.nodes_spanned,
                "calls": self.calls, "algorithm": self.algorithm, "overlap_window": self.window,
                "time_s": None if self.time_s is None else round(self.time_s, 6),
                "share_of_compute": None if self.share is None else round(self.share, 4)}


@dataclass
class JobModel:
    job: TrainingJob
    world: int | None = None
    parallel: dict[str, int | None] = field(default_factory=dict)
    microbatches: int | None = None
    shape: S.ModelShape | None = None
    params: float | None = None
    params_activated: float | None = None
    flops_per_token: dict[str, float] = field(default_factory=dict)
    flops_classic: float | None = None   # Korthikanti 2022 App. A model FLOPs per step (paper GPT shape)
    step_flops: float | None = None      # model FLOPs per step (Megatron, causal attention)
    mfu: float = DEFAULT_MFU             # compute efficiency
    gpu: str | None = None
    domain: int | None = None
    gpus_per_node: int | None = None
    nic_gbps_per_gpu: float | None = None
    nvlink_gbps: float | None = None
    nic_line_gbit: float | None = None
    nic_count: int | None = None
    transport: str | None = None
    oversubscription: float | None = None
    bubble_ideal: float | None = None
    bubble_wall: float | None = None
    estimate: ST.StepEstimate | None = None
    split: Split | None = None
    traffic: list[Traffic] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    vocab_assumed_zero: bool = False

    @property
    def step_time_s(self) -> float | None:
        """The best case: compute plus bubble, every collective hidden (the hard limit's window)."""
        return None if self.estimate is None else self.estimate.compute_s + self.estimate.bubble_s

    @property
    def required_nic_gbps(self) -> float | None:
        """Σ bytes per GPU through the NICs / best-case step (infeasible above the NIC's rate)."""
        t = self.step_time_s
        return None if not t or not self.traffic else sum(r.fabric_bytes_per_gpu for r in self.traffic) / t / 1e9

    def rows(self, dimension: str) -> list[Traffic]:
        return [t for t in self.traffic if t.dimension == dimension]

    def row(self, dimension: str) -> Traffic | None:
        """The dimension summed into one row (bytes, NIC bytes and time of all its collectives)."""
        rows = self.rows(dimension)
        if not rows:
            return None
        times = [r.time_s for r in rows]
        t = None if any(x is None for x in times) else sum(times)
        compute = self.estimate.compute_s if self.estimate else None
        return Traffic(dimension, "+".join(sorted({r.collective for r in rows})), max(r.group_size for r in rows),
                       "fabric" if any(r.link in ("fabric", "inter-node") for r in rows) else rows[0].link,
                       sum(r.bytes_per_gpu for r in rows), sum(r.fabric_bytes_per_gpu for r in rows),
                       max(r.nodes_spanned for r in rows), all(r.critical for r in rows), sum(r.calls for r in rows),
                       time_s=t, share=t / compute if t is not None and compute else None)

    @property
    def nic_label(self) -> str:
        if self.nic_line_gbit is None:
            return "the NIC"
        g = f"{self.nic_line_gbit:g}"
        if self.transport == "efa":
            return f"{g}G EFA"
        ethernet = ("roce", "ethernet", "gpudirect-tcpx", "gpudirect-tcpxo")
        return f"{g}GbE" if self.transport in ethernet else f"{g}G InfiniBand"


def analyze(job: TrainingJob, inventory=None, mfu: float | None = None) -> JobModel:
    try:
        return _analyze(job, inventory, mfu)
    except OverflowError:  # sizes whose parameters, FLOPs or bytes pass a double (1e308): no model
        m = JobModel(job=job, mfu=mfu or DEFAULT_MFU, world=job.int("world_size"))
        m.missing.append("model sizes too large to model (they overflow a 64-bit float)")
        return m


def _analyze(job: TrainingJob, inventory=None, mfu: float | None = None) -> JobModel:
    m = JobModel(job=job, mfu=mfu or DEFAULT_MFU, world=job.int("world_size"))
    split = C.split_of(job)
    m.parallel = {"tp": job.int("tp") or 1, "pp": job.int("pp") or 1, "dp": job.int("dp"), "cp": job.int("cp") or 1,
                  "ep": job.int("ep") or 1, "etp": job.int("etp") or job.int("tp") or 1, "vpp": job.int("vpp") or 1}
    m.split = split
    m.microbatches = split.microbatches if split else None
    if m.microbatches is None and job.int("grad_accum"):
        m.microbatches = job.int("grad_accum")
    pp, vpp = m.parallel["pp"], m.parallel["vpp"]
    if pp > 1 and m.microbatches:
        m.bubble_ideal = F.bubble_ideal(pp, m.microbatches, vpp)
        m.bubble_wall = F.bubble_wall(pp, m.microbatches, vpp)
    shape, missing = S.from_job(job)
    m.missing += missing
    if shape is None:
        return m
    if not shape.vocab:
        m.vocab_assumed_zero = True
    m.shape = shape
    p = S.params(shape)
    m.params, m.params_activated = p.total, p.activated
    m.flops_per_token = S.flops_per_token(shape)
    gbs = split.global_batch if split else job.int("global_batch")
    if gbs:
        m.step_flops = S.flops_step(shape, gbs)
        if shape.classic:
            m.flops_classic = F.model_flops(gbs, shape.seq, shape.layers, shape.hidden, shape.vocab)
    node = C.node_shape(inventory)
    if node is not None:
        m.gpu, m.domain = node["gpu"].name, node["domain"]
        m.gpus_per_node = job.int("gpus_per_node") or node["gpus"]
        m.transport, m.oversubscription = node["transport"], node["oversubscription"]
        if node["nic_gbit"]:
            m.nic_line_gbit, m.nic_count = max(node["nic_gbit"]), len(node["nic_gbit"])
    if split is None or not split.microbatches or not job.int("world_size"):
        m.missing.append("parallel sizes, world size or batch")
        return m
    hw = C.hardware_of(job, node, m.mfu) if node is not None else \
        ST.Hardware(peak_tflops=1.0, efficiency=m.mfu, gpus_per_node=job.int("gpus_per_node"))
    m.nic_gbps_per_gpu, m.nvlink_gbps = hw.links.nic, hw.links.nvlink
    est = ST.evaluate(shape, split, C.framework_of(job), hw)
    if est is None:
        return m
    m.estimate = est if node is not None else None
    for d in est.dims.values():
        for r in d.rows:
            link = r.link if node is not None else ("inter-node" if r.nodes > 1 else "intra-node")
            m.traffic.append(Traffic(
                r.c.dim, r.c.kind, r.c.group, link, r.c.per_rank, r.fabric if node is not None else 0.0, r.nodes,
                r.c.window == "none", r.c.calls, r.algo, r.c.window,
                r.time_s if node is not None else None,
                r.time_s / est.compute_s if node is not None and r.time_s is not None and est.compute_s else None))
    return m


def job_models(ws) -> dict[int, JobModel]:
    """Models of every TrainingJob of the workspace, computed once (``ws.derived``)."""
    from netlint.models.job import training_jobs

    def compute(ws) -> dict[int, JobModel]:
        mfu = ws.config.settings.mfu
        return {id(j): analyze(j, ws.inventory, mfu) for j in training_jobs(ws)}

    return ws.derived("fabric.job_models", compute)
