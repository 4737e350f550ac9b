from __future__ import annotations

from netlint.fabric.step import DEFAULT_BUDGET, required_gbps
from netlint.findings import Related, Severity
from netlint.rules.base import Rule
from netlint.rules.fab.advised import advised_fix
from netlint.rules.fab.common import dimension_words, gb, models
from netlint.rules.job.common import key

FIELDS = {"TP": "tp", "PP": "pp", "CP": "cp", "EP": "ep", "ETP": "etp"}


class NicBandwidth(Rule):
    """The NICs are too slow for the traffic a parallel dimension sends across nodes.

    **What**: netlint models the step (``netlint model``): compute at ``mfu`` of the GPU's dense peak,
    and per parallel dimension the bytes each GPU sends through its node's NICs (placement on the
    inventory, hierarchical collectives), timed at the GPU's share of the NICs (line rate × 0.94, the
    node's NICs shared by its GPUs) with NCCL's latency per call. Traffic on the critical path (TP,
    CP all-gather, EP all-to-all, DP without overlap flags) is exposed; traffic the framework overlaps
    (``--overlap-grad-reduce``, ``overlap_comm``, FSDP prefetch, ``--tp-comm-overlap``, ring attention)
    is exposed only beyond the compute that hides it. Reported when, for one dimension, the NIC
    bandwidth it needs to keep its exposed time within ``budget`` × the compute time (or, when its
    NVLink part and latency alone already exceed that, to add nothing to them) is more than the link
    gives — or, the hard limit, when all bytes through the NICs do not fit in compute + bubble even if
    every collective were overlapped.

    **Why**: critical-path traffic is not averaged over the step: a TP collective waits for the NIC
    in every layer. E.g. GPT-3 175B at TP=16, PP=8 on 8-GPU H100 nodes (sequence parallel, 64
    sequences of 2048 per step) sends 24.2 GB of TP traffic per GPU per step through the NICs; to keep
    its exposed part within half of the 2.75 s compute it needs 13.8 GB/s per GPU, more than 8×100GbE
    gives (11.75 GB/s per GPU). At TP=8 the TP groups stay on NVLink.

    **Bad**: TP=16 across 8-GPU nodes with 8×100GbE **Good**: TP=8 inside the node, or 400G per GPU

    **Fix**: keep TP (and CP, EP where possible) inside the NVLink domain; turn on the overlap the
    framework has (``--overlap-grad-reduce``/``--overlap-param-gather``, ``--tp-comm-overlap``,
    DeepSpeed ``overlap_comm``); reduce gradients in bf16 (``--grad-reduce-in-bf16``,
    ``communication_data_type``); or faster NICs. ``netlint model`` shows each dimension's need. The
    unsafe fix is the layout advisor's best split (``netlint model --advise``) that this rule would not
    report, runs faster than the layout as written, keeps the world and the global batch, and changes
    only the TP / PP / VPP / CP / EP sizes the launch writes (Megatron-LM and NeMo).

    **Options**: ``[tool.netlint.rules.FAB504] budget = 0.5`` (exposed time the NICs may add, share
    of the compute; default 0.5: the job still runs at ≥ 2/3 of its compute-bound speed),
    ``margin = 1.0`` (report when required > margin × available). When the vocabulary is unknown its
    FLOPs are left out and a 10% margin is added, so a shorter estimated step cannot raise a false alarm.

    **Source**: NVIDIA/Megatron-LM@d98e8a64 `megatron/core/tensor_parallel/layers.py` L623-707,
    L1561-1566 (TP collectives per linear layer), `megatron/core/distributed/param_and_grad_buffer.py`
    L600-760 (DP gradient reduction), `megatron/training/training.py` L802-1310
    (`num_floating_point_operations`); deepspeedai/DeepSpeed@38327e07
    `deepspeed/runtime/zero/stage_1_and_2.py` L1051-1146; NVIDIA/nccl@5067397c `src/graph/tuning.cc`
    L149-175, L384-428 (latency per call); NVIDIA/nccl-tests `doc/PERFORMANCE.md` at 03a204a1 (bytes
    per rank per collective); achievable NIC bandwidth "46-48GB/s per NIC" at NDR 400G
    (NVIDIA/nccl-tests#290), 12.2 GB/s at 100G (NVIDIA/nccl-tests#29); DeepSeek-AI, "DeepSeek-V3
    Technical Report" (arXiv:2412.19437) §3.2.1 (a 1:1 computation-to-communication ratio is
    inefficient).
    """

    code = "FAB504"
    name = "nic-bandwidth"
    severity = Severity.ERROR
    summary = "A parallel dimension needs more NIC bandwidth than the link gives"

    def check(self, ws):
        opts = ws.config.rule_options(self.code)
        margin = float(opts.get("margin", 1.0))
        budget = float(opts.get("budget", DEFAULT_BUDGET))
        for job, m in models(ws):
            est, have = m.estimate, m.nic_gbps_per_gpu
            if est is None or not have or not m.traffic:
                continue
            limit = have * margin * (1.1 if m.vocab_assumed_zero else 1.0)
            needs = [(required_gbps(d, est, m.nvlink_gbps, budget), d) for d in est.dims.values() if d.fabric > 0]
            needs = [(n, d) for n, d in needs if n is not None]
            hard = m.required_nic_gbps
            words = {d.name: dimension_words(m, d.name) for _, d in needs}
            if hard is not None and hard > limit:
                parts = ", ".join(f"{words[d.name]} {gb(d.fabric)}" for _, d in sorted(needs, key=lambda x: -x[1].fabric))
                msg = (f"{m.nic_label} cannot sustain the {hard:.1f} GB/s per GPU that the job needs across nodes "
                       f"even with every collective overlapped (achievable {have:.1f} GB/s): {parts} per GPU per "
                       f"step must leave its node within the {m.step_time_s:.2f} s of compute and bubble at "
                       f"{m.mfu:.0%} of peak")
                dim = max(needs, key=lambda x: x[1].fabric)[1].name if needs else None
            else:
                over = [(n, d) for n, d in needs if n > limit]
                if not over:
                    continue
                need, d = max(over, key=lambda x: x[0])
                dim = d.name
                msg = (f"{m.nic_label} cannot sustain the {need:.1f} GB/s per GPU that {words[dim]} needs across "
                       f"nodes (achievable {have:.1f} GB/s): {gb(d.fabric)} per GPU per step through the NICs would "
                       f"add more exposed communication than the budget of {budget:.0%} of the "
                       f"{est.compute_s:.2f} s compute at {m.mfu:.0%} of peak")
                others = [f"{words[o.name]} {n:.1f} GB/s" for n, o in over if o is not d]
                if others:
                    msg += f"; also {', '.join(others)}"
            rel = [Related(ws.inventory.node_groups[0].nics[0].speed.span, "NIC speed")] \
                if ws.inventory.node_groups and ws.inventory.node_groups[0].nics else []
            fix = advised_fix(ws, job, accept=lambda c: _within(c, m, limit, budget), better_than_current=True)
            yield self.finding(msg, _span(job, dim), key=key(job, "nic-bw"), related=rel, fix=fix)


def _within(c, m, limit: float, budget: float) -> bool:
    """A candidate layout this rule would not report: each dimension's need and the hard limit."""
    est = c.estimate
    if est is None:
        return False
    window = est.compute_s + est.bubble_s
    if window and sum(d.fabric for d in est.dims.values()) / window / 1e9 > limit:
        return False
    needs = (required_gbps(d, est, m.nvlink_gbps, budget) for d in est.dims.values() if d.fabric > 0)
    return all(n is None or n <= limit for n in needs)


def _span(job, dim: str | None):
    field = FIELDS.get(dim or "")
    if field and getattr(job, field, None) is not None and field not in job.defaulted and job.span_of(field) is not job.span:
        return job.span_of(field)
    return job.span_of("world_size") if job.world_size is not None else job.span
