"""``netlint model`` on run evidence: measured against expected bus bandwidth for the nccl-tests results
among the paths, and ``--calibrate RESULTS``: the model's achievable fractions fitted to a run, with the
modelled times beside the measured ones and the jobs' modelled steps before and after
(:mod:`netlint.run.calibrate`, :mod:`netlint.run.expect`).
"""

from __future__ import annotations

from pathlib import Path


def _tests(ws):
    from netlint.run.intent import runs

    return [(log, t) for log in runs(ws) for t in log.tests]


def measured_json(ws) -> list[dict]:
    from netlint.run.expect import node_of
    from netlint.run.measure import compare, peak_row, saturation, shape_of

    node = node_of(ws.inventory)
    out = []
    for log, t in _tests(ws):
        shape, row = shape_of(t), peak_row(t)
        c = compare(t, node) if node is not None else None
        sat = saturation(t)
        out.append({"file": log.file, "line": t.start.line, "program": t.program.value if t.program else None,
                    "collective": t.collective, "ranks": shape[0] if shape else None,
                    "nodes": shape[1] if shape else None,
                    "peak_busbw_gbps": row.busbw() if row else None, "peak_size": row.size if row else None,
                    "judged_busbw_gbps": c.row.busbw() if c else None, "judged_size": c.row.size if c else None,
                    "expected_busbw_gbps": round(c.expected, 2) if c else None,
                    "ratio": round(c.ratio, 3) if c else None,
                    "saturates_at": sat[0].size if sat else None,
                    "max_size": max((r.size for r in t.rows), default=None),
                    "avg_busbw_gbps": t.avg_busbw.value if t.avg_busbw else None})
    return out


def measured_text(ws) -> str:
    from netlint.run.calibrate import FROM_SIZE

    rows = measured_json(ws)
    if not rows:
        return ""
    from netlint.display import namer

    name = namer(ws.root)
    lines = ["nccl-tests results (bus bandwidth, GB/s):"]
    for r in rows:
        where = f"{name(r['file'])}:{r['line']}"
        head = f"  {r['program'] or 'nccl-tests'} ({where})"
        if r["ranks"]:
            head += f": {r['ranks']} ranks on {r['nodes']} node(s)"
        lines.append(head)
        if r["peak_busbw_gbps"] is None:
            lines.append("    no result rows")
            continue
        meas = f"    measured peak {r['peak_busbw_gbps']:g} at {_size(r['peak_size'])}"
        if r["expected_busbw_gbps"] is not None and r["judged_size"] != r["peak_size"]:
            meas += (f"; from 64 MiB up the best is {r['judged_busbw_gbps']:g} at {_size(r['judged_size'])}, "
                     f"expected {r['expected_busbw_gbps']:g} from the inventory ({r['ratio']:.0%})")
        elif r["expected_busbw_gbps"] is not None:
            meas += f"; expected {r['expected_busbw_gbps']:g} from the inventory ({r['ratio']:.0%})"
        elif ws.inventory is None:
            meas += "; expected: needs an inventory (--inventory)"
        elif r["collective"] is None:
            meas += "; expected: not modelled — the log does not name the test (all_reduce_perf, …)"
        elif r["ranks"] is None:
            meas += ("; expected: not modelled — the log shows neither device lines nor NCCL's comm line "
                     "(ranks, nodes)")
        elif r["max_size"] is not None and r["max_size"] < FROM_SIZE:
            meas += "; expected: only judged from 64 MiB"
        else:
            meas += "; expected: not modelled for this test"
        lines.append(meas)
        if r["saturates_at"] is not None:
            lines.append(f"    within 95% of the peak from {_size(r['saturates_at'])}")
    return "\n".join(lines) + "\n"


def calibration(ws, results: list[Path], mfu: float) -> dict:
    """The fit to the nccl-tests runs in ``results``, as data (``error`` set when it cannot be made)."""
    from netlint.loaders.run_log import read_log
    from netlint.run.calibrate import fit
    from netlint.run.expect import expected_busbw, expected_time, node_of, step_time
    from netlint.source import SourceFile, UnreadableFile

    node = node_of(ws.inventory)
    if node is None:
        return {"error": "calibration needs an inventory (--inventory) for the links to fit"}
    tests = []
    for path in results:
        try:
            src = SourceFile.read(str(path), path)
            tests += read_log(src.path, src.text, src.name).tests
        except (OSError, UnreadableFile) as exc:
            return {"error": f"cannot read {path}: {getattr(exc, 'message', exc)}"}
    f = fit(tests, node)
    if f is None:
        return {"error": "no nccl-tests rows of a modelled collective with its ranks and hosts in the results"}
    rows = []
    for p in f.points:
        t0 = expected_time(p.kind, p.row.size, p.ranks, p.nodes, node, f.default)
        t1 = expected_time(p.kind, p.row.size, p.ranks, p.nodes, node, f.fitted)
        rows.append({"program": p.test.program.value, "ranks": p.ranks, "nodes": p.nodes, "size": p.row.size,
                     "measured_us": round(p.measured_s * 1e6, 2), "model_us": _us(t0), "calibrated_us": _us(t1),
                     "measured_busbw_gbps": p.measured_busbw,
                     "calibrated_busbw_gbps": _round(expected_busbw(p.kind, p.row.size, p.ranks, p.nodes, node,
                                                                    f.fitted))})
    from netlint.models.job import training_jobs

    jobs = [{"file": j.file, "name": j.label, "step_s": _round(step_time(j, ws.inventory, mfu), 4),
             "calibrated_step_s": _round(step_time(j, ws.inventory, mfu, f.fitted), 4)} for j in training_jobs(ws)]
    return {"fractions": {k: {"model": round(getattr(f.default, k), 4), "fitted": round(getattr(f.fitted, k), 4),
                              "determined": f.determined[k]} for k in ("nic", "nvlink")},
            "rms_log_error": _round(f.error, 4), "points": rows, "jobs": jobs}


def calibration_text(cal: dict) -> str:
    if "error" in cal:
        return f"calibration: {cal['error']}\n"
    out = ["calibration (achievable share of line rate):"]
    for k, v in cal["fractions"].items():
        note = "" if v["determined"] else " (not determined by these results: kept)"
        out.append(f"  {k:6s} model {v['model']:.3f} -> fitted {v['fitted']:.3f}{note}")
    if cal["rms_log_error"] is not None:
        out.append(f"  fit error (RMS of log time ratio): {cal['rms_log_error']:.4f}")
    fmt = "  {:>9}  {:>10}  {:>10}  {:>10}  {:>8}  {:>10}"
    out.append(fmt.format("size", "measured", "model", "calibrated", "busbw", "calibrated"))
    out.append(fmt.format("", "us", "us", "us", "GB/s", "GB/s"))
    last = None
    for r in cal["points"]:
        key = (r["program"], r["ranks"], r["nodes"])
        if key != last:
            out.append(f"  {r['program']}, {r['ranks']} ranks on {r['nodes']} node(s):")
            last = key
        out.append(fmt.format(_size(r["size"]), f"{r['measured_us']:g}", _num(r["model_us"]),
                              _num(r["calibrated_us"]), f"{r['measured_busbw_gbps']:g}",
                              _num(r["calibrated_busbw_gbps"])))
    for j in cal["jobs"]:
        out.append(f"  job {j['name']}: modelled step {_num(j['step_s'])} s -> {_num(j['calibrated_step_s'])} s "
                   f"with the fitted fractions")
    return "\n".join(out) + "\n"


def _size(n) -> str:
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div} {unit}"
    return f"{n} B"


def _us(t):
    return None if t is None else round(t * 1e6, 2)


def _round(v, nd=2):
    return None if v is None else round(v, nd)


def _num(v) -> str:
    return "-" if v is None else f"{v:g}"
