from __future__ import annotations

from netlint.findings import Severity
from netlint.rules.base import Rule
from netlint.rules.fab.common import gb, models, transport_name
from netlint.rules.job.common import key, origin


class EpCpCrossNodes(Rule):
    """Expert-parallel or context-parallel groups that leave the NVLink domain.

    **What**: the EP group (ETP·EP consecutive ranks on the expert grid) or the TP·CP block is larger
    than the NVLink domain, so MoE all-to-alls or context-parallel K/V exchanges go over the NICs.

    **Why**: with the all-to-all dispatcher EP does four all-to-alls per MoE layer per micro-batch,
    ≈ 2·T·k·h·(a_d+a_c)·(e-1)/e bytes per rank (uniform routing; measured DeepEP over 400G RDMA:
    43-58 GB/s per GPU versus ~155 GB/s on NVLink); Megatron's default allgather dispatcher gathers
    every token over TP×EP (``core/transformer/moe/token_dispatcher.py`` L281-368); CP exchanges K/V
    in every layer. Both can be right at scale (DeepSeek-V3 crosses nodes on purpose), hence a
    warning with the traffic they add (``netlint model``'s bytes and time).

    **Bad**: ``--expert-model-parallel-size 16`` on 8-GPU nodes **Good**: EP ≤ 8, or accept it knowingly

    **Source**: NVIDIA/Megatron-LM@d98e8a64 `megatron/core/parallel_state.py` L617 and L870-895 (the
    expert grid: ETP·EP consecutive ranks); deepseek-ai/DeepEP README (the backward of dispatch is a
    combine and vice versa) and `docs/legacy.md` at 0297fc80 (normal kernels, H800 + CX7 400G:
    153-158 GB/s intranode over NVLink, 43-58 GB/s internode over RDMA); DeepSeek-AI, "DeepSeek-V3
    Technical Report" (arXiv:2412.19437), §3.2 (cross-node expert parallelism);
    NVIDIA/Megatron-LM@d98e8a64 `docs/user-guide/features/context_parallel.md` L19 (CP all-gathers
    KV in forward, reduce-scatters its gradients in backward).
    """

    code = "FAB502"
    name = "ep-cp-cross-nodes"
    severity = Severity.WARNING
    summary = "EP or CP groups crossing the NVLink domain add fabric traffic"

    def check(self, ws):
        for job, m in models(ws):
            if m.domain is None:
                continue
            for dim, field in (("EP", "ep"), ("CP", "cp")):
                size = job.int(field)
                if size is None or size <= 1 or getattr(job, field) is None:
                    continue
                block = (job.int("etp") or 1) * size if dim == "EP" else (job.int("tp") or 1) * size
                if block <= m.domain and m.domain % block == 0:
                    continue
                msg = (f"{dim}={size} group crosses the NVLink domain ({m.domain} GPUs) over "
                       f"{transport_name(m.transport)}")
                row = m.row(dim)
                if row is not None and row.fabric_bytes_per_gpu:
                    msg += f": +{gb(row.fabric_bytes_per_gpu)} per GPU per step through the NICs"
                    if row.time_s is not None:
                        msg += f" ({row.time_s:.2f} s"
                        msg += f", {row.share * 100:.0f}% of the compute)" if row.share is not None else ")"
                yield self.finding(msg, getattr(job, field).span, key=key(job, f"{field}-domain"),
                                   related=origin(getattr(job, field)))
