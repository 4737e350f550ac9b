from __future__ import annotations

from netlint.findings import Related, Severity
from netlint.rules.base import Rule
from netlint.rules.fab.common import gb, models
from netlint.rules.job.common import key


class NicBandwidth(Rule):
    """The NICs cannot carry the traffic the job must push through them in one step.

    **What**: Σ over parallel groups of the bytes per GPU that leave the node (placement on the
    inventory; hierarchical collectives, where a node sends 2(N-1)/N of an all-reduce buffer over its
    NICs) divided by the step time at the configured MFU is larger than the NIC bandwidth per GPU (line
    rate × 0.94 achievable, NICs of a node shared by its GPUs). Then the job is slower than its compute
    even with perfect overlap.

    **Why**: e.g. a 7B model, pure DP on 512 GPUs, fp32 gradients: 28 GB per step, ≥ 140 ms even on 8×400G
    (2·511/512·28 GB over 8 × 50 GB/s); on 100GbE (≈ 11.75 GB/s achievable) four times longer.

    **Bad**: 100GbE nodes for a job that needs 48 GB/s per GPU **Good**: 400G per GPU, or less fabric traffic
    (TP inside the node, distributed optimizer, bf16 gradient reduction)

    **Options**: ``[tool.netlint.rules.FAB504] margin = 1.0`` (report when required > margin × available).
    Step time uses ``mfu`` (default 0.40). When the vocabulary is unknown its FLOPs are left out and a
    10% margin is added so a shorter estimated step cannot raise a false alarm.

    **Source**: NVIDIA/nccl-tests `doc/PERFORMANCE.md` at 03a204a1 (all-reduce sends 2(n-1)/n of the
    buffer per rank); Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion
    Parameter Models", SC'20 (arXiv:1910.02054), §7 (data-parallel volume 2Ψ, 3Ψ with ZeRO-3);
    Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using
    Megatron-LM", SC'21 (arXiv:2104.04473), §3.3; NVIDIA/Megatron-LM@d98e8a64
    `megatron/training/training.py` L802 (`num_floating_point_operations`); achievable NIC
    bandwidth: "46-48GB/s per NIC" at NDR 400G (NVIDIA/nccl-tests#290), 12.2 GB/s at 100G
    (NVIDIA/nccl-tests#29).
    """

    code = "FAB504"
    name = "nic-bandwidth"
    severity = Severity.ERROR
    summary = "Fabric traffic per step exceeds what the NICs carry"

    def check(self, ws):
        opts = ws.config.rule_options(self.code)
        margin = float(opts.get("margin", 1.0))
        for job, m in models(ws):
            need, have = m.required_nic_gbps, m.nic_gbps_per_gpu
            if need is None or not have or not m.traffic:
                continue
            limit = have * margin * (1.1 if m.vocab_assumed_zero else 1.0)
            if need <= limit:
                continue
            parts = ", ".join(f"{t.dimension} {gb(t.fabric_bytes_per_gpu)}" for t in m.traffic if t.fabric_bytes_per_gpu)
            msg = (f"{m.nic_label} cannot sustain required {need:.1f} GB/s per GPU (achievable {have:.1f} GB/s): "
                   f"{parts} per step must leave each GPU's node in a {m.step_time_s:.2f} s step at MFU {m.mfu:.0%}")
            rel = [Related(ws.inventory.node_groups[0].nics[0].speed.span, "NIC speed")] \
                if ws.inventory.node_groups and ws.inventory.node_groups[0].nics else []
            yield self.finding(msg, job.span_of("world_size") if job.world_size is not None else job.span,
                               key=key(job, "nic-bw"), related=rel)
