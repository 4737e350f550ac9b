from __future__ import annotations

from netlint.findings import Fix, Severity
from netlint.rules.base import Rule
from netlint.rules.fab.advised import advised_fix, edit_value
from netlint.rules.fab.common import gb, models, transport_name
from netlint.rules.job.common import key, origin


class TpCrossesNvlinkDomain(Rule):
    """A tensor-parallel group larger than (or not aligned to) the NVLink domain.

    **What**: TP ranks are consecutive (Megatron's rank order ``tp-cp-ep-dp-pp``, TP fastest), so a TP
    group stays on NVLink only when TP ≤ the NVLink domain (GPUs per HGX node; 72 on GB200 NVL72) and
    divides it. Otherwise part of every TP all-reduce goes over the scale-out NICs.

    **Why**: TP does 4 all-reduces of b·s·h activations per layer per micro-batch (Narayanan §3.2;
    8·(t-1)/t·b·s·h bytes per layer; 10 with sequence parallelism, which re-gathers the input of each
    column-parallel linear for its weight gradient), mostly on the critical path. For Llama-3 405B at TP=8 that is ~474 GB per
    GPU per step: ~1.3 s over NVLink, ~10 s over one 400G NIC in a ~12.5 s step (netlint's
    arithmetic on Llama 3 Tables 3-4). "Tensor model parallelism should generally be used up to
    degree g when using g-GPU servers" (Narayanan Takeaway #1).

    **Bad**: ``--tensor-model-parallel-size 16`` on 8-GPU nodes **Good**: TP 8 and PP (or DP) × 2

    **Fix**: the layout advisor's first choice (``netlint model --advise``): of the TP / PP / VPP / CP /
    EP splits of the same world that the model allows, keep TP inside the NVLink domain and fit in GPU
    memory, the one with the shortest modelled step that keeps the global batch and can be written as
    edits of the sizes the launch states (Megatron-LM and NeMo, where DP follows the world). Without a
    model shape or batch: TP down to the largest size that fits the domain and divides the heads, PP
    multiplied by the same factor when the layers allow it (otherwise DP grows). Unsafe: it changes
    the training run.

    **Source**: NVIDIA/Megatron-LM@d98e8a64 `megatron/core/parallel_state.py` L617 (default rank
    order `tp-cp-ep-dp-pp`, TP fastest); Narayanan et al., "Efficient Large-Scale Language Model
    Training on GPU Clusters Using Megatron-LM", SC'21 (arXiv:2104.04473), §3.2 (8bsh(t-1)/t per
    layer per micro-batch) and Takeaway #1; Llama Team, "The Llama 3 Herd of Models"
    (arXiv:2407.21783), Tables 3-4 (405B: 126 layers, h 16,384; TP 8, PP 16, 430 TFLOP/s per GPU);
    NVLink ≈370 GB/s per direction (NVIDIA/nccl-tests#212), 46-48 GB/s per 400G NIC
    (NVIDIA/nccl-tests#290).
    """

    code = "FAB501"
    name = "tp-crosses-nvlink-domain"
    severity = Severity.ERROR
    summary = "Tensor parallelism must stay inside the NVLink domain"

    def check(self, ws):
        for job, m in models(ws):
            tp = job.int("tp")
            if tp is None or tp <= 1 or m.domain is None or job.tp is None:
                continue
            domain = m.domain
            if tp <= domain and domain % tp == 0:
                continue
            where = "spans nodes" if tp > domain else "is not aligned to the nodes"
            msg = (f"TP={tp} {where} over {transport_name(m.transport)} (NVLink domain is {domain} GPUs): every "
                   "layer's tensor-parallel collectives cross the fabric")
            row = m.row("TP")
            if row is not None and row.fabric_bytes_per_gpu:
                msg += f" ({gb(row.fabric_bytes_per_gpu)} per GPU per step through the NICs"
                dim = m.estimate.dims.get("TP") if m.estimate is not None else None
                if dim is not None and dim.exposed_s is not None:
                    msg += (f"; {dim.exposed_s:.2f} s of TP communication exposed per step beside "
                            f"{m.estimate.compute_s:.2f} s of compute at {m.mfu:.0%} of peak")
                msg += ")"
            fix = advised_fix(ws, job) or self._fix(ws, job, domain)
            yield self.finding(msg, job.tp.span, key=key(job, "tp-domain"), fix=fix,
                               related=origin(job.tp, "TP written here"))

    def _fix(self, ws, job, domain: int):
        """Without the advisor (no shape or batch): TP into the domain, PP × the same factor."""
        tp = job.int("tp")
        heads = job.int("heads")
        new = next((t for t in range(min(tp, domain), 0, -1)
                    if domain % t == 0 and tp % t == 0 and (heads is None or heads % t == 0)), None)
        if new is None or new == tp:
            return None
        factor = tp // new
        edits = []
        e = edit_value(ws, job.tp, str(new))
        if e is None:
            return None
        edits.append(e)
        pp, L = job.int("pp"), job.int("layers")
        desc = f"TP {tp} → {new}"
        if job.pp is not None and "pp" not in job.defaulted and pp is not None and L is not None \
                and L % (pp * factor) == 0:
            e2 = edit_value(ws, job.pp, str(pp * factor))
            if e2 is not None:
                edits.append(e2)
                desc += f", PP {pp} → {pp * factor} (world size unchanged)"
        else:
            desc += f" (DP grows ×{factor}; world size unchanged)"
        return Fix(desc, tuple(edits), safe=False)

