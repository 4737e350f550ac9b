"""The layout advisor: every TP / PP / VPP / CP / EP / DP split of a job's world that its model and
cluster allow, ranked by the modelled step (:func:`netlint.fabric.step.evaluate`).

:func:`advise` is a pure function of (shape, split as written, framework settings, hardware,
:class:`Limits`); :func:`from_job` reads those from a :class:`~netlint.models.job.TrainingJob` and the
inventory (no file is read). A layout is kept when

- the frameworks can build it — heads (and query groups) divisible by TP (JOB406:
  NVIDIA/Megatron-LM@d98e8a64 ``megatron/core/transformer/transformer_config.py`` L1446-1468), layers
  by PP and by PP·VPP (JOB405: ``megatron/training/arguments.py`` L953-998), the world by TP·PP·CP
  (JOB403: L424-433) and by ETP·EP·PP (JOB404: ``megatron/core/parallel_state.py`` L871-884), experts
  by EP (JOB415: arguments.py L1654-1658; DeepSpeed MoE also carves EP out of DP,
  deepspeedai/DeepSpeed@38327e07 ``deepspeed/moe/layer.py`` L59), EP with TP only with sequence
  parallelism (JOB416: ``core/transformer/moe/moe_layer.py`` L636-640), the sequence by 2·CP (JOB407:
  arguments.py L1335-1338), the global batch by micro batch × DP (JOB408:
  ``core/num_microbatches_calculator.py`` L381-391), interleaving only with PP > 1 and at least PP
  micro-batches (JOB417: arguments.py L1000-1008, ``core/pipeline_parallel/schedules.py`` L1160-1168),
  no pipeline under DeepSpeed ZeRO-2/3 ("ZeRO-2 and ZeRO-3 are incompatible with pipeline
  parallelism", ``deepspeed/runtime/pipe/engine.py`` L77-78);
- TP stays inside the NVLink domain (FAB501; Narayanan et al. 2021, arXiv:2104.04473, Takeaway #1);
- it fits in the GPU's memory (:mod:`netlint.fabric.memory`).

The micro batch, the global batch, the framework's settings (SP, recompute, optimizer, overlap, ETP as
written) stay as the job has them: the advisor changes only how the world is split. It then ranks by
step time — the model parallelism that fits memory and leaves the rest to DP usually wins (Narayanan
Takeaway #2: "a total model-parallel size of M = t·p should be used so that the model's parameters
and intermediate metadata fit in GPU memory; data parallelism can be used to scale up training").
The grid is bounded: TP, PP and EP over divisors, CP over powers of two up to :data:`CP_MAX`, VPP up to
:data:`VPP_MAX` (and the job's own CP and VPP); at most :data:`MAX_EVALUATED` layouts are timed (the
least model-parallel first, a note says so).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from netlint.fabric import memory as M
from netlint.fabric import shape as S
from netlint.fabric import step as ST
from netlint.fabric.traffic import Framework, Split

MAX_EVALUATED = 2000
TIE = 0.02          # layouts within 2% of each other: fewer changes, then fewer parallel dimensions first
VPP_MAX = 8
CP_MAX = 32
UNEVEN_PP = ("--decoder-first-pipeline-num-layers", "--decoder-last-pipeline-num-layers",
             "--pipeline-model-parallel-layout", "--hybrid-override-pattern")
_CP = ("megatron", "nemo", "torchtitan")
_VPP = ("megatron", "nemo")
_EVEN_PP = ("megatron", "nemo")     # Megatron-DeepSpeed, gpt-neox and torchtitan partition stages themselves


@dataclass(frozen=True)
class Limits:
    world: int
    domain: int                          # GPUs per NVLink domain
    gpu_gb: float                        # memory per GPU
    framework: str = "megatron"
    sequence_parallel: bool = False      # the job turns SP on: used whenever TP > 1
    etp: int | None = None               # expert TP as written (None: follows TP)
    vary: frozenset = frozenset({"tp", "pp", "vpp", "cp", "ep"})
    pipeline_layers: int | None = None   # what PP·VPP must divide (layers + embedding/loss stages)
    vpp_min_pp: int = 2                  # 3 with --no-overlap-p2p-communication
    max_pp: int | None = None            # 1 under DeepSpeed ZeRO-2/3
    flash: bool = True                   # fused attention: no s×s scores kept
    bf16: bool = False                   # bf16 model (DeepSpeed's BF16_Optimizer without ZeRO)
    batches: tuple = ()                  # other global batches of a ramp-up or schedule (JOB420)
    fixed_dp: int | None = None          # a batch schedule netlint cannot read: DP stays
    usable: float = M.USABLE_FRACTION


@dataclass
class Candidate:
    split: Split
    estimate: ST.StepEstimate | None
    memory: M.Memory
    why: list[str] = field(default_factory=list)

    @property
    def step_s(self) -> float | None:
        return None if self.estimate is None else self.estimate.step_s

    @property
    def bubble_share(self) -> float:
        e = self.estimate
        return e.bubble_s / e.step_s if e is not None and e.step_s else 0.0


@dataclass
class Advice:
    current: Candidate | None
    ranked: list[Candidate]
    considered: int = 0                               # layouts the frameworks can build
    rejected: dict[str, int] = field(default_factory=dict)
    note: str | None = None
    peak_tflops: float = 0.0
    limits: Limits | None = None

    @property
    def current_is_valid(self) -> bool:
        """The layout as written stays in the NVLink domain and fits in memory."""
        return self.current is not None and self.limits is not None and _inside(self.current.split, self.limits) \
            and self.current.memory.fits

    @property
    def best(self) -> Candidate | None:
        return self.ranked[0] if self.ranked else None


def divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0] if n > 0 else []


def framework_for(fw: Framework, sp: Split, limits: Limits) -> Framework:
    """The job's settings at another split: SP on whenever TP > 1 if the job asks for it; torchtitan
    re-gathers parameters for backward only without PP (netlint.fabric.settings)."""
    out = replace(fw, sequence_parallel=limits.sequence_parallel and sp.tp > 1)
    if fw.name == "torchtitan":
        out = replace(out, fsdp_reshard=sp.pp <= 1)
    return out


def _grid(shape: S.ModelShape, cur: Split, lim: Limits, rejected: dict[str, int]) -> list[Split]:
    w, groups = lim.world, shape.groups
    vary = lim.vary

    def axis(name: str, values):
        return list(values) if name in vary else [getattr(cur, name)]

    tps = axis("tp", (t for t in divisors(w) if shape.heads % t == 0 and (groups % t == 0 or t % groups == 0)))
    layers = lim.pipeline_layers or shape.layers
    out: list[Split] = []
    for tp in tps:
        pps = axis("pp", (p for p in divisors(w // tp) if p <= layers and (lim.max_pp is None or p <= lim.max_pp)
                          and (layers % p == 0 or lim.framework not in _EVEN_PP)))
        for pp in pps:
            if w % (tp * pp):
                continue
            powers = {cur.cp, *(2 ** i for i in range(CP_MAX.bit_length()))}
            cps = axis("cp", (c for c in sorted(powers) if (w // (tp * pp)) % c == 0
                              and (c == 1 or shape.seq % (2 * c) == 0))) if lim.framework in _CP else [cur.cp]
            for cp in cps:
                if w % (tp * pp * cp):
                    continue
                dp = w // (tp * pp * cp)
                gb = cur.global_batch
                if not gb or any(b % (cur.micro_batch * dp) for b in (gb, *lim.batches)) or \
                        lim.fixed_dp not in (None, dp):
                    rejected["global batch"] = rejected.get("global batch", 0) + 1
                    continue
                m = gb // (cur.micro_batch * dp)
                vpps = [1]
                if "vpp" in vary and lim.framework in _VPP and pp >= lim.vpp_min_pp and m >= pp:
                    vpps += [v for v in divisors(layers // pp) if 1 < v and (v <= VPP_MAX or v == cur.vpp)]
                elif "vpp" not in vary:
                    vpps = [cur.vpp]
                for ep in _eps(shape, cur, lim, tp, pp, dp):
                    for vpp in vpps:
                        out.append(replace(cur, tp=tp, pp=pp, cp=cp, dp=dp, ep=ep, vpp=vpp,
                                           etp=lim.etp))
    return out


def _eps(shape: S.ModelShape, cur: Split, lim: Limits, tp: int, pp: int, dp: int) -> list[int]:
    if not shape.is_moe or "ep" not in lim.vary:
        return [cur.ep]
    etp = lim.etp or tp
    out = []
    for e in divisors(shape.experts):
        if lim.world % (etp * e * pp):
            continue
        if e > 1 and tp > 1 and not lim.sequence_parallel and lim.framework in ("megatron", "nemo"):
            continue
        if lim.framework not in ("megatron", "nemo") and dp % e:
            continue
        out.append(e)
    return out or [cur.ep]


def _inside(sp: Split, lim: Limits) -> bool:
    return sp.tp <= 1 or (sp.tp <= lim.domain and lim.domain % sp.tp == 0)


def advise(shape: S.ModelShape, current: Split, fw: Framework, hw: ST.Hardware, lim: Limits,
           top: int | None = None) -> Advice:
    """Every allowed layout of ``lim.world`` GPUs, fitting ones ranked by modelled step time."""
    rejected: dict[str, int] = {}
    grid = _grid(shape, current, lim, rejected)
    considered = len(grid) + sum(rejected.values())
    fitting: list[tuple[Split, M.Memory]] = []
    for sp in grid:
        if not _inside(sp, lim):
            rejected["NVLink domain"] = rejected.get("NVLink domain", 0) + 1
            continue
        mem = M.per_gpu(shape, sp, framework_for(fw, sp, lim), lim.gpu_gb, lim.flash, lim.usable, lim.bf16)
        if not mem.fits:
            rejected["memory"] = rejected.get("memory", 0) + 1
            continue
        fitting.append((sp, mem))
    note = None
    if len(fitting) > MAX_EVALUATED:
        fitting.sort(key=lambda x: (x[0].tp * x[0].pp * x[0].cp, x[0].vpp, -x[0].ep))
        note = (f"{len(fitting)} layouts fit; the {MAX_EVALUATED} with the least model parallelism were timed")
        fitting = fitting[:MAX_EVALUATED]
    ranked = []
    for sp, mem in fitting:
        est = ST.evaluate(shape, sp, framework_for(fw, sp, lim), hw)
        if est is None or est.step_s is None:
            rejected["no step model"] = rejected.get("no step model", 0) + 1
            continue
        ranked.append(Candidate(sp, est, mem))
    if ranked:
        best = min(c.step_s for c in ranked)
        ranked.sort(key=lambda c: (int(math.log(c.step_s / best) / math.log(1 + TIE)) if best > 0 else 0,
                                   _changes(c.split, current), _dims(c.split), c.step_s, c.memory.total))
    cur_est = ST.evaluate(shape, current, framework_for(fw, current, lim), hw)
    cur = Candidate(current, cur_est, M.per_gpu(shape, current, framework_for(fw, current, lim), lim.gpu_gb,
                                                lim.flash, lim.usable, lim.bf16))
    advice = Advice(cur, ranked if top is None else ranked[:top], considered, rejected, note, hw.peak_tflops, lim)
    cur.why = _facts(cur, lim)
    if not any(_same(sp, current) for sp in grid):
        cur.why.insert(0, "a split the framework refuses (see the JOB4xx findings)")
    for i, c in enumerate(advice.ranked):
        c.why = _facts(c, lim) + _wins(c, advice.ranked[i + 1] if i + 1 < len(advice.ranked) else None, i + 2, cur)
    return advice


def _same(a: Split, b: Split) -> bool:
    return all(getattr(a, k) == getattr(b, k) for k in ("tp", "pp", "vpp", "cp", "ep", "dp", "expert_tp"))


def _dims(sp: Split) -> int:
    return sum(v > 1 for v in (sp.tp, sp.pp, sp.vpp, sp.cp, sp.ep))


def _changes(sp: Split, cur: Split) -> int:
    return sum(getattr(sp, k) != getattr(cur, k) for k in ("tp", "pp", "vpp", "cp", "ep"))


def secs(v: float) -> str:
    return f"{v:.2f} s" if v >= 0.1 else f"{v * 1000:.0f} ms" if v >= 0.001 else f"{v * 1e6:.0f} µs"


def layout_words(sp: Split) -> str:
    parts = [f"TP {sp.tp}", f"PP {sp.pp}"]
    if sp.vpp > 1:
        parts.append(f"VPP {sp.vpp}")
    if sp.cp > 1:
        parts.append(f"CP {sp.cp}")
    if sp.ep > 1:
        parts.append(f"EP {sp.ep}")
    parts.append(f"DP {sp.dp}")
    return " ".join(parts)


def _facts(c: Candidate, lim: Limits) -> list[str]:
    sp, est = c.split, c.estimate
    out = []
    if sp.tp > 1:
        out.append(f"TP={sp.tp} stays in NVLink" if _inside(sp, lim) else
                   f"TP={sp.tp} crosses the {lim.domain}-GPU NVLink domain")
    if est is None or not est.step_s:
        return out
    if sp.pp > 1:
        v = f" VPP={sp.vpp}" if sp.vpp > 1 else ""
        out.append(f"PP={sp.pp}{v} bubble {c.bubble_share:.0%}")
    edp = max(1, sp.world // (sp.expert_tp * sp.ep * sp.pp))
    for name, d in est.dims.items():
        if d.exposed_s is None:
            continue
        size = {"DP": sp.dp * sp.cp, "EDP": edp, "ETP": sp.expert_tp}.get(name) or getattr(sp, name.lower(), None)
        name = "DP×CP" if name == "DP" and sp.cp > 1 else name
        where = f" across {d.nodes} nodes" if d.nodes > 1 else ""
        if d.exposed_s > 1e-6:
            out.append(f"{name}={size}{where} {secs(d.exposed_s)} exposed")
        elif d.time_s:
            out.append(f"{name}={size}{where} hidden")
    out.append(f"{c.memory.total / 1e9:.0f} of {c.memory.limit / 1e9:.0f} GB")
    return out


def _wins(c: Candidate, nxt: Candidate | None, rank: int, cur: Candidate) -> list[str]:
    out = []
    if _same(c.split, cur.split):
        out.append("the layout as written")
    elif cur.step_s and c.step_s:
        r = cur.step_s / c.step_s
        out.append(f"{r:.2f}x the speed of the layout as written" if r >= 1.005 else
                   "as fast as the layout as written" if r > 0.995 else f"{r:.2f}x the speed as written")
    if nxt is None or nxt.estimate is None or c.estimate is None:
        return out
    if c.step_s > nxt.step_s:
        simpler = "fewer changes" if _changes(c.split, cur.split) < _changes(nxt.split, cur.split) \
            else "fewer parallel dimensions"
        out.append(f"within {c.step_s / nxt.step_s - 1:.1%} of #{rank} with {simpler}")
        return out
    parts = {"bubble": nxt.estimate.bubble_s - c.estimate.bubble_s}
    for name in set(c.estimate.dims) | set(nxt.estimate.dims):
        a, b = c.estimate.dims.get(name), nxt.estimate.dims.get(name)
        parts[f"{name} exposed"] = (b.exposed_s or 0.0 if b else 0.0) - (a.exposed_s or 0.0 if a else 0.0)
    what, delta = max(parts.items(), key=lambda kv: kv[1])
    if delta > 1e-6:
        out.append(f"{secs(delta)} less {what} than #{rank}")
    return out


def from_job(job, inventory, mfu: float):
    """(shape, split, framework, hardware, limits) of a job on the inventory, or None and why."""
    from netlint.fabric import settings as C
    from netlint.fabric.model import DEFAULT_MFU

    node = C.node_shape(inventory)
    if node is None:
        return None, "no inventory"
    shape, missing = S.from_job(job)
    split = C.split_of(job)
    world = job.int("world_size")
    if shape is None or split is None or not world or not split.global_batch:
        return None, "model shape, parallel sizes, world size or global batch unknown" + (
            f" ({', '.join(missing)})" if missing else "")
    if split.world != world:
        return None, "the parallel sizes do not multiply to the world size"
    if job.framework == "megatron-deepspeed" and (job.int("ds_sp") or 1) > 1:
        return None, "DeepSpeed-Ulysses sequence parallelism is not modelled"
    fw = C.framework_of(job)
    hw = C.hardware_of(job, node, mfu or DEFAULT_MFU)
    vary = {"megatron": {"tp", "pp", "vpp", "cp", "ep"}, "nemo": {"tp", "pp", "vpp", "cp", "ep"},
            "megatron-deepspeed": {"tp", "pp", "ep"}, "gpt-neox": {"tp", "pp"},
            "torchtitan": {"tp", "pp", "cp"}}.get(job.framework, set())
    if any(f in job.args for f in UNEVEN_PP):
        vary -= {"pp", "vpp"}
    extra = sum(f in job.args for f in ("--account-for-embedding-in-pipeline-split",
                                        "--account-for-loss-in-pipeline-split"))
    deepspeed = job.framework in C.DEEPSPEED_FAMILY
    batches, readable = _batches(job)
    etp = None if "etp" in job.defaulted or job.int("etp") is None else job.int("etp")
    split = replace(split, etp=etp)       # ETP follows TP unless the job writes it
    lim = Limits(world=world, domain=hw.domain or node["gpus"], gpu_gb=node["gpu"].hbm_gb, framework=job.framework,
                 sequence_parallel=job.flag("sequence_parallel") or job.framework == "torchtitan",
                 etp=etp,
                 vary=frozenset(vary), pipeline_layers=shape.layers + extra,
                 vpp_min_pp=3 if "--no-overlap-p2p-communication" in job.args else 2,
                 max_pp=1 if deepspeed and (fw.zero_stage or 0) >= 2 else None,
                 flash=not deepspeed or any(f in job.args for f in ("--use-flash-attn", "--use-flash-attn-v2")),
                 batches=batches, fixed_dp=None if readable else split.dp, bf16=job.value("dtype") == "bf16")
    return (shape, split, fw, hw, lim), None


def _batches(job) -> tuple[tuple[int, ...], bool]:
    """Global batches a ramp-up (START, INCREMENT; JOB420) or ``--step-batch-size-schedule``
    ("THRESHOLD:BS …", ``core/num_microbatches_calculator.py`` L493-520; each batch checked against
    micro batch × DP when it applies, L551-554) also trains at; False when the schedule is unreadable."""
    out = [int(v.value) for v in job.rampup_batch[:2] if isinstance(v.value, int)]
    arg = job.args.get("--step-batch-size-schedule")
    if arg is not None:
        text = arg.value.value if arg.value is not None else None
        if not isinstance(text, str):
            return tuple(out), False
        for entry in text.replace(",", " ").split():
            bs = entry.split(":", 1)[-1].strip().upper()
            mult = {"K": 10**3, "M": 10**6, "B": 10**9, "T": 10**12}.get(bs[-1:], 1)
            try:
                out.append(int(float(bs.rstrip("KMBT")) * mult))
            except ValueError:
                return tuple(out), False
    return tuple(b for b in out if b > 0), True


def advise_job(job, inventory, mfu: float, top: int | None = None) -> tuple[Advice | None, str | None]:
    inputs, why = from_job(job, inventory, mfu)
    if inputs is None:
        return None, why
    return advise(*inputs, top=top), None


class _JobAdvice:
    """id(job) → Advice, each computed when first asked for: only jobs with a finding that offers a
    layout need one, and advising costs ~0.1 s a job."""

    def __init__(self, ws) -> None:
        self._ws, self._jobs, self._done = ws, None, {}
        # advise() is a pure function of its inputs, and a repo's launches are mostly copies of a few
        # (the same model and split in every folder): each distinct input is advised once
        self._by_inputs: dict[tuple, Advice] = {}

    def get(self, key: int, default: Advice | None = None) -> Advice | None:
        if key not in self._done:
            from netlint.models.job import training_jobs

            self._jobs = self._jobs or {id(j): j for j in training_jobs(self._ws)}
            job = self._jobs.get(key)
            self._done[key] = job and self._advise(job)
        return self._done[key] or default

    def _advise(self, job) -> Advice | None:
        inputs, _ = from_job(job, self._ws.inventory, self._ws.config.settings.mfu)
        if inputs is None:
            return None
        try:
            known = self._by_inputs.get(inputs)
        except TypeError:  # an input that does not hash: advise it alone
            return advise(*inputs)
        if known is None:
            known = self._by_inputs[inputs] = advise(*inputs)
        return known


def job_advice(ws) -> _JobAdvice:
    """Advice for the training jobs of the workspace (``.get(id(job))``), each computed once."""
    return ws.derived("fabric.advice", _JobAdvice)
