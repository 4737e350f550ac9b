"""The layout advisor's best split as an unsafe fix (FAB501, FAB504): edits of the TP / PP / VPP / CP /
EP values where they are written (the assignment when a value came through a shell variable). No rules
here."""

from __future__ import annotations

from netlint.findings import Fix, replace_span

# Megatron and NeMo derive DP from the world (arguments.py L424-448) and keep an explicit global batch;
# other frameworks state DP or the batch per GPU, so changing the split changes the batch.
FIXABLE = ("megatron", "nemo")


def edit_value(ws, s, new: str):
    """Edit the literal where the value was written (the assignment when it came through a variable)."""
    target = getattr(s, "origin", None) or s.span
    text = ws.text(target.file)
    if text is None or target.start < 0 or text[target.start:target.end] != str(s.value):
        return None
    return replace_span(target, new, text)


def _edits(ws, job, cur, new) -> tuple[list, list[str]] | None:
    edits, words = [], []
    for name in ("tp", "pp", "cp", "ep"):
        a, b = getattr(cur, name), getattr(new, name)
        if a == b:
            continue
        s = getattr(job, name)
        if s is None or name in job.defaulted:
            return None
        e = edit_value(ws, s, str(b))
        if e is None:
            return None
        edits.append(e)
        words.append(f"{name.upper()} {a} → {b}")
    lpv = job.layers_per_vstage
    if lpv is not None and "layers_per_vstage" not in job.defaulted:
        layers = job.int("layers")
        extra = sum(f in job.args for f in ("--account-for-embedding-in-pipeline-split",
                                            "--account-for-loss-in-pipeline-split"))
        if not layers or (layers + extra) % (new.pp * new.vpp):
            return None
        want = (layers + extra) // (new.pp * new.vpp)
        if want != job.int("layers_per_vstage"):
            e = edit_value(ws, lpv, str(want))
            if e is None:
                return None
            edits.append(e)
            words.append(f"layers per virtual stage {job.int('layers_per_vstage')} → {want}")
    elif cur.vpp != new.vpp:
        if job.vpp is None or "vpp" in job.defaulted:
            return None
        e = edit_value(ws, job.vpp, str(new.vpp))
        if e is None:
            return None
        edits.append(e)
        words.append(f"VPP {cur.vpp} → {new.vpp}")
    places = [(e.span.file, e.span.start) for e in edits]
    if len(set(places)) != len(places):      # two sizes written by one variable
        return None
    return edits, words


def advised_fix(ws, job, accept=None, better_than_current: bool = False, advice=None) -> Fix | None:
    """The best-ranked layout that keeps the world and the global batch and can be written as edits."""
    from netlint.fabric.advisor import job_advice, layout_words

    if job.framework not in FIXABLE:
        return None
    adv = advice if advice is not None else job_advice(ws).get(id(job))
    if adv is None or adv.current is None:
        return None
    cur = adv.current
    for c in adv.ranked:
        if c.split == cur.split:
            continue
        if "global_batch" in job.defaulted and c.split.dp != cur.split.dp:
            continue             # the batch follows DP when it is not written
        if better_than_current and (cur.step_s is None or c.step_s >= cur.step_s):
            return None
        if accept is not None and not accept(c):
            continue
        got = _edits(ws, job, cur.split, c.split)
        if got is None:
            continue
        edits, words = got
        if not edits:
            continue
        if c.split.dp != cur.split.dp:
            words.append(f"DP {cur.split.dp} → {c.split.dp}")
        step = f"modelled step {c.step_s:.2f} s" + (f" vs {cur.step_s:.2f} s" if cur.step_s else "")
        desc = (f"advised layout {layout_words(c.split)}: {', '.join(words)} (world size and global batch "
                f"{c.split.global_batch} unchanged; {step}; {c.memory.total / 1e9:.0f} of "
                f"{c.memory.limit / 1e9:.0f} GB per GPU)")
        return Fix(desc, tuple(edits), safe=False)
    return None
