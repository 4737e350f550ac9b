"""One training step in time: compute, the pipeline bubble, and each dimension's communication,
exposed or hidden behind the compute the framework overlaps it with.

:func:`evaluate` is a pure function of (model shape, split, framework settings, hardware) — no job,
no inventory — so a layout advisor can call it for every candidate split (:class:`Split`) and rank
them by :attr:`StepEstimate.step_s`; :func:`netlint.fabric.model.analyze` calls it for the job as
written.

- **Compute** = hardware FLOPs per GPU / (dense peak × ``efficiency``). Hardware FLOPs are Megatron's
  model FLOPs (:func:`netlint.fabric.shape.flops_step`) with the forward passes recomputation adds.
  ``efficiency`` is netlint's ``mfu`` setting (default 0.40): the whole-step MFU Megatron-LM reports
  on H100 (41-48%, README) includes communication and bubbles, so the compute alone runs at least
  that fast; the low end keeps compute long and the bandwidth a job needs low (no false alarms).
- **Bubble** = (p-1)/(v·m) × compute (Narayanan et al. 2021 §2.2: relative to the ideal time).
- **Communication**: per collective :func:`netlint.fabric.collectives.collective_time` (latency per
  call + bytes over NVLink, NVLS or the GPU's share of the NICs); per dimension the time of its
  collectives grouped by the compute window that can hide them — ``none`` (critical path: TP, CP
  all-gather, EP all-to-all, DP without overlap flags), ``step`` (TP with ``--tp-comm-overlap``, EP
  with ``--overlap-moe-expert-parallel-comm``, ZeRO-3/FSDP parameter prefetch, interleaved PP),
  ``backward`` (ZeRO-2 ``overlap_comm``, FSDP reduce-scatter), ``last-backward`` (Megatron
  ``--overlap-grad-reduce``: only the last micro-batch's backward, schedules.py L814), ``first-forward``
  (``--overlap-param-gather``), ``attention`` (CP ring attention). Exposed = Σ over windows of
  max(0, time − window). Dimensions are treated independently (two dimensions hiding behind the same
  backward each get all of it: exposed time is a lower bound).
- **Step** = compute + bubble + Σ exposed; modelled MFU = model FLOPs / (GPUs × peak × step).

:func:`required_gbps` gives, per dimension, the NIC bandwidth per GPU that keeps its exposed time
within ``budget × compute`` (or, when NVLink and latency alone exceed that, adds nothing to them) —
what FAB504 compares with the link.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from netlint.fabric import placement as P
from netlint.fabric import shape as S
from netlint.fabric import traffic as T
from netlint.fabric.collectives import Links, collective_time, latency_us

# FAB504's default budget: exposed communication may add up to half the compute time (the job then
# runs at ≥ 2/3 of its compute-bound speed). DeepSeek-V3 (arXiv:2412.19437 §3.2.1) calls the 1:1
# computation-to-communication ratio of cross-node expert parallelism "inefficient".
DEFAULT_BUDGET = 0.5


@dataclass(frozen=True)
class Hardware:
    peak_tflops: float                 # dense bf16 per GPU
    efficiency: float = 0.40
    domain: int | None = None          # GPUs per NVLink domain (None: one node per gpus_per_node)
    gpus_per_node: int | None = None
    links: Links = field(default_factory=Links)


@dataclass
class Row:
    """One collective of the step, placed and timed."""

    c: T.Collective
    nodes: int = 1
    fabric: float = 0.0               # bytes per GPU through the NICs per step
    time_s: float | None = None
    algo: str = "-"
    latency_s: float = 0.0

    @property
    def link(self) -> str:
        return "fabric" if self.nodes > 1 else "nvlink"


@dataclass
class Dimension:
    name: str
    group: int
    rows: list[Row] = field(default_factory=list)
    time_s: float | None = 0.0
    window_s: float = 0.0             # compute seconds that can hide it (sum over its windows)
    exposed_s: float | None = 0.0

    @property
    def latency_s(self) -> float:
        return sum(r.latency_s for r in self.rows if r.nodes > 1)

    @property
    def per_rank(self) -> float:
        return sum(r.c.per_rank for r in self.rows)

    @property
    def fabric(self) -> float:
        return sum(r.fabric for r in self.rows)

    @property
    def nodes(self) -> int:
        return max((r.nodes for r in self.rows), default=1)

    @property
    def overlap(self) -> str:
        return ", ".join(sorted({r.c.overlap for r in self.rows if r.c.overlap}))


@dataclass
class StepEstimate:
    model_flops: float
    hardware_flops: float
    compute_s: float
    bubble_s: float
    windows: dict[str, float]
    dims: dict[str, Dimension]
    microbatches: int

    @property
    def exposed_s(self) -> float | None:
        vals = [d.exposed_s for d in self.dims.values()]
        return None if any(v is None for v in vals) else sum(vals)

    @property
    def step_s(self) -> float | None:
        e = self.exposed_s
        return None if e is None else self.compute_s + self.bubble_s + e

    def mfu(self, gpus: int, peak_tflops: float) -> float | None:
        t = self.step_s
        return None if not t else self.model_flops / (gpus * peak_tflops * 1e12 * t)


def collectives(shape: S.ModelShape, sp: T.Split, fw: T.Framework, params: S.Params, mb: int,
                ranks_per_node: int) -> list[T.Collective]:
    """Every collective of one step, per dimension (netlint.fabric.traffic)."""
    rows = T.tp(shape, sp, fw, mb) + T.cp(shape, sp, fw, mb) + T.pp(shape, sp, fw, mb)
    rows += T.ep(shape, sp, fw, mb, ranks_per_node)
    dense_psi = params.dense / (sp.tp * sp.pp)
    # Megatron reduces dense gradients over DP×CP (distributed_data_parallel.py L148-149, L289),
    # torchtitan shards over dp_shard×cp
    rows += T.dp(dense_psi, sp.dp * sp.cp, sp, fw, mb)
    if params.expert:
        edp = max(1, sp.world // (sp.expert_tp * sp.ep * sp.pp))
        rows += T.dp(params.expert / (sp.expert_tp * sp.ep * sp.pp), edp, sp, fw, mb, "EDP")
    return rows


def evaluate(shape: S.ModelShape, sp: T.Split, fw: T.Framework, hw: Hardware) -> StepEstimate | None:
    """The modelled step, or None when the batch does not split into micro-batches."""
    mb = sp.microbatches
    if not mb:
        return None
    params = S.params(shape)
    model = S.flops_step(shape, sp.global_batch or 0)
    hardware = model * S.hardware_factor(shape, fw.recompute)
    compute = hardware / sp.world / (hw.peak_tflops * 1e12 * hw.efficiency)
    bubble = (sp.pp - 1) / (sp.vpp * mb) * compute if sp.pp > 1 else 0.0
    f = S.flops_per_token(shape)
    per_mb = compute / mb
    windows = {"none": 0.0, "step": compute, "backward": compute * 2 / 3, "last-backward": per_mb * 2 / 3,
               "first-forward": per_mb / 3, "attention": compute * f["attention"] / sum(f.values())}
    gpn = hw.gpus_per_node or hw.domain or sp.world
    domain = hw.domain or gpn
    dims: dict[str, Dimension] = {}
    for c in collectives(shape, sp, fw, params, mb, gpn):
        g = P.group_of(c.dim, c.group, sp.tp, sp.cp, sp.dp, sp.expert_tp, sp.ep, fw.fsdp_replicate)
        nodes, fabric = P.fabric_bytes(c.kind, c.per_rank, g, domain)
        if c.fabric is not None and nodes > 1:
            fabric = c.fabric
        t, algo = collective_time(c.kind, c.per_rank, fabric, c.group, nodes, c.calls, hw.links)
        dim = dims.setdefault(c.dim, Dimension(c.dim, c.group))
        dim.group = max(dim.group, c.group)
        lat = c.calls * latency_us(c.kind, algo, c.group, nodes) * 1e-6 if algo != "-" else 0.0
        dim.rows.append(Row(c, nodes, fabric, t, algo, lat))
    for dim in dims.values():
        _expose(dim, windows)
    return StepEstimate(model, hardware, compute, bubble, windows, dims, mb)


def _expose(dim: Dimension, windows: dict[str, float]) -> None:
    by_window: dict[str, float | None] = {}
    for r in dim.rows:
        prev = by_window.get(r.c.window, 0.0)
        by_window[r.c.window] = None if prev is None or r.time_s is None else prev + r.time_s
    if any(v is None for v in by_window.values()):
        dim.time_s = dim.exposed_s = None
    else:
        dim.time_s = sum(by_window.values())
        dim.exposed_s = sum(max(0.0, t - windows[w]) for w, t in by_window.items())
    dim.window_s = sum(windows[w] for w in by_window)


def exposed_at(dim: Dimension, est: StepEstimate, nic_gbps: float, nvlink_gbps: float | None) -> float:
    """The dimension's exposed seconds if each GPU had ``nic_gbps`` of NIC bandwidth (its NVLink part
    and latency unchanged)."""
    by_window: dict[str, float] = {}
    for r in dim.rows:
        intra = r.c.per_rank / (nvlink_gbps * 1e9) if nvlink_gbps else 0.0
        bw = intra if r.nodes <= 1 else max(intra, r.fabric / (nic_gbps * 1e9) if nic_gbps < math.inf else 0.0)
        by_window[r.c.window] = by_window.get(r.c.window, 0.0) + bw + r.latency_s
    return sum(max(0.0, t - est.windows[w]) for w, t in by_window.items())


def required_gbps(dim: Dimension, est: StepEstimate, nvlink_gbps: float | None,
                  budget: float = DEFAULT_BUDGET) -> float | None:
    """The NIC bandwidth per GPU (GB/s) the dimension needs to keep its exposed time within ``budget`` ×
    compute — or, when its NVLink part and latency alone already exceed that, to add nothing to them —
    by bisection (exposure falls as bandwidth grows); None without cross-node traffic."""
    if dim.fabric <= 0:
        return None
    lo, hi = 1e-3, 1e6
    limit = max(budget * est.compute_s, exposed_at(dim, est, math.inf, nvlink_gbps)) * (1 + 1e-9)
    if exposed_at(dim, est, lo, nvlink_gbps) <= limit:
        return 0.0
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if exposed_at(dim, est, mid, nvlink_gbps) > limit else (lo, mid)
    return hi
