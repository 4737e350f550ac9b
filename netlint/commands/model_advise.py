"""``netlint model --advise``: the layouts of each job's world ranked by modelled step time
(netlint.fabric.advisor), as text under the job's model or as ``"advice"`` in ``--format json``."""

from __future__ import annotations


def _r(v, nd=4):
    return None if v is None else round(v, nd)


def candidate_json(c, rank, peak: float) -> dict:
    sp, est = c.split, c.estimate
    out = {"rank": rank,
           "layout": {"tp": sp.tp, "pp": sp.pp, "vpp": sp.vpp, "cp": sp.cp, "ep": sp.ep, "etp": sp.expert_tp,
                      "dp": sp.dp, "micro_batch": sp.micro_batch, "global_batch": sp.global_batch,
                      "microbatches": sp.microbatches},
           "memory": c.memory.as_dict(), "why": c.why, "time": None}
    if est is not None:
        out["time"] = {
            "compute_s": _r(est.compute_s), "bubble_s": _r(est.bubble_s), "exposed_comm_s": _r(est.exposed_s),
            "step_s": _r(est.step_s), "modelled_mfu": _r(est.mfu(sp.world, peak)) if peak else None,
            "dimensions": [{"dimension": d.name, "group_size": d.group, "nodes_spanned": d.nodes,
                            "link": "fabric" if d.nodes > 1 else "nvlink", "bytes_per_gpu": round(d.per_rank),
                            "fabric_bytes_per_gpu": round(d.fabric), "time_s": _r(d.time_s, 6),
                            "window_s": _r(d.window_s, 6), "exposed_s": _r(d.exposed_s, 6)}
                           for d in est.dims.values()]}
    return out


def _fix(ws, job, adv):
    """The best layout the launch's written sizes can express, when it matters: the layout as written
    leaves the NVLink domain or memory, or the advised one is at least 1% faster."""
    from netlint.rules.fab.advised import advised_fix

    fix = advised_fix(ws, job, advice=adv)
    if fix is None or not adv.current_is_valid or adv.current.step_s is None:
        return fix
    return advised_fix(ws, job, advice=adv, accept=lambda c: c.step_s < 0.99 * adv.current.step_s)


def advice_json(ws, job, mfu: float, top: int) -> dict:
    from netlint.fabric.advisor import advise_job

    adv, why = advise_job(job, ws.inventory, mfu)
    if adv is None:
        return {"unavailable": why}
    fix = _fix(ws, job, adv)
    ranked = adv.ranked if top <= 0 else adv.ranked[:top]
    sp = adv.current.split
    return {"kept": {"world_size": sp.world, "micro_batch": sp.micro_batch, "global_batch": sp.global_batch},
            "considered": adv.considered, "fitting": len(adv.ranked), "rejected": adv.rejected, "note": adv.note,
            "current": candidate_json(adv.current, None, adv.peak_tflops),
            "ranked": [candidate_json(c, i + 1, adv.peak_tflops) for i, c in enumerate(ranked)],
            "fix": None if fix is None else {
                "description": fix.description,
                "edits": [{"file": e.span.file, "line": e.span.line, "col": e.span.col, "replacement": e.replacement}
                          for e in fix.edits]}}


def _row(label: str, c, peak: float) -> tuple[str, ...]:
    from netlint.fabric.advisor import layout_words

    est = c.estimate
    mem = f"{c.memory.total / 1e9:.1f} GB" + ("" if c.memory.fits else " (over)")
    if est is None or est.step_s is None:
        return (label, layout_words(c.split), "-", "-", "-", "-", "-", mem)
    mfu = est.mfu(c.split.world, peak) if peak else None
    return (label, layout_words(c.split), f"{est.step_s:.3f} s", f"{est.compute_s:.3f} s", f"{est.bubble_s:.3f} s",
            f"{est.exposed_s:.3f} s", "-" if mfu is None else f"{mfu:.0%}", mem)


def advice_text(ws, job, mfu: float, top: int) -> str:
    from netlint.commands.model import _table
    from netlint.fabric.advisor import advise_job

    adv, why = advise_job(job, ws.inventory, mfu)
    if adv is None:
        return f"  advice: none ({why})\n\n"
    sp, mem = adv.current.split, adv.current.memory
    rej = ", ".join(f"{n} {what}" for what, n in sorted(adv.rejected.items(), key=lambda kv: -kv[1]))
    out = [f"  layouts of {sp.world} GPUs: {len(adv.ranked)} of {adv.considered} fit"
           + (f" (rejected: {rej})" if rej else "")
           + f"; {mem.limit / 1e9:.0f} of {mem.capacity / 1e9:.0f} GB per GPU usable;"
           f" micro batch {sp.micro_batch} and global batch {sp.global_batch} kept"]
    if adv.note:
        out.append(f"  note: {adv.note}")
    ranked = adv.ranked if top <= 0 else adv.ranked[:top]
    rows = [("#", "layout", "step", "compute", "bubble", "exposed", "MFU", "memory/GPU"),
            _row("as written", adv.current, adv.peak_tflops)]
    whys = [adv.current.why]
    for i, c in enumerate(ranked):
        rows.append(_row(str(i + 1), c, adv.peak_tflops))
        whys.append(c.why)
    table = _table(rows)
    out.append(table[0])
    for line, why in zip(table[1:], whys):
        out.append(line)
        if why:
            out.append("      " + "; ".join(why))
    if not ranked:
        out.append("  no layout fits in memory and in the NVLink domain")
    fix = _fix(ws, job, adv)
    if fix is not None:
        out.append(f"  as edits of the sizes the launch writes: {fix.description}")
    return "\n".join(out) + "\n\n"
