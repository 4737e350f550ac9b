"""``netlint model [PATH...]``: the throughput model of each training job found under PATH.

Per job: the model shape, parameters (total and activated per token), FLOPs per step and per token
(Megatron's count with causal attention; the paper formula too for the classic GPT shape), and the
step in time — compute at the ``mfu`` compute efficiency, pipeline bubble, and per parallel dimension
the bytes per GPU, the bytes through the NICs, the communication time, the compute that hides it and
what stays exposed, with the NIC bandwidth per GPU the dimension needs to add at most FAB504's
``budget`` of the compute (netlint.fabric; formulas and sources in its module docstrings).
``--advise`` adds the job's layouts ranked by modelled step, with memory per GPU
(netlint.commands.model_advise; docs/model.md).

``--format json`` emits ``{"jobs": [{"file", "framework", "world_size", "parallel", "shape",
"params", "params_activated", "flops_per_token", "step_flops", "step_flops_classic", "time":
{"compute_s", "bubble_s", "exposed_comm_s", "step_s", "modelled_mfu"}, "dimensions": [{"dimension",
"size", "group_size", "nodes_spanned", "link", "bytes_per_gpu", "fabric_bytes_per_gpu", "time_s",
"window_s", "exposed_s", "overlap", "required_nic_gbps_per_gpu"}], "traffic": [one row per
collective: calls, algorithm, overlap window, …], …}]}``.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path


def add_parser(sub) -> None:
    p = sub.add_parser("model", help="traffic per parallel group and step time of each training job")
    p.add_argument("paths", nargs="*", type=Path, help="files or directories (default: .)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--inventory", type=Path, help="cluster inventory file")
    p.add_argument("--config", type=Path, help="configuration file (default: found upward)")
    p.add_argument("--mfu", type=float, help="compute efficiency: share of dense peak the FLOPs run at "
                                             "(default: config or 0.40)")
    p.add_argument("--advise", action="store_true",
                   help="rank the TP/PP/VPP/CP/EP/DP layouts that fit memory and the NVLink domain (docs/model.md)")
    p.add_argument("--top", type=int, default=5, help="layouts --advise shows (0: all; default 5)")
    p.add_argument("--calibrate", type=Path, action="append", metavar="RESULTS",
                   help="fit the model's achievable NIC and NVLink fractions to nccl-tests output (repeatable); "
                        "shows modelled and measured times (netlint.commands.model_runs)")


def run(args) -> int:
    from netlint.commands.workspace_run import workspace_report
    from netlint.fabric.model import analyze
    from netlint.fabric.step import DEFAULT_BUDGET
    from netlint.models.job import training_jobs

    report = workspace_report(args)
    if report is None:
        return 2
    ws = report.workspace
    mfu = args.mfu or ws.config.settings.mfu
    budget = float(ws.config.rule_options("FAB504").get("budget", DEFAULT_BUDGET))
    models = [analyze(j, ws.inventory, mfu) for j in training_jobs(ws)]
    advise = getattr(args, "advise", False)
    from netlint.commands import model_runs as R   # nccl-tests results among the paths, --calibrate

    measured = R.measured_json(ws)
    cal = R.calibration(ws, args.calibrate, mfu or _default_mfu()) if getattr(args, "calibrate", None) else None
    from netlint.display import shown_label

    def name(label: str) -> str:  # files named from the current directory, as `netlint check` does
        return shown_label(ws.root, label, ws.sources)

    if args.format == "json":
        jobs = [_as_json(m, budget) for m in models]
        if advise:
            from netlint.commands.model_advise import advice_json
            for d, m in zip(jobs, models):
                d["advice"] = advice_json(ws, m.job, mfu, args.top)
        doc = {"jobs": jobs, **({"runs": measured} if measured else {}), **({"calibration": cal} if cal else {})}
        sys.stdout.write(json.dumps(_shown_files(doc, ws), indent=2) + "\n")
    elif advise and models:
        from netlint.commands.model_advise import advice_text
        sys.stdout.write("".join(_as_text([m], ws.inventory is not None, budget, name).rstrip("\n") + "\n"
                                 + advice_text(ws, m.job, mfu, args.top) for m in models))
    elif models or not (measured or cal):
        sys.stdout.write(_as_text(models, ws.inventory is not None, budget, name))
    if args.format != "json":
        sys.stdout.write(R.measured_text(ws) + (R.calibration_text(cal) if cal else ""))
    return 0


def _r(v, nd=4):
    return None if v is None else round(v, nd)


def _dimensions(m, budget: float) -> list[dict]:
    from netlint.fabric.step import required_gbps
    from netlint.rules.fab.common import dimension_words

    est = m.estimate
    if est is None:
        return []
    out = []
    for d in est.dims.values():
        out.append({"dimension": d.name, "size": dimension_words(m, d.name), "group_size": d.group,
                    "nodes_spanned": d.nodes, "link": "fabric" if d.nodes > 1 else "nvlink",
                    "bytes_per_gpu": round(d.per_rank), "fabric_bytes_per_gpu": round(d.fabric),
                    "time_s": _r(d.time_s, 6), "window_s": _r(d.window_s, 6), "exposed_s": _r(d.exposed_s, 6),
                    "overlap": d.overlap or None,
                    "required_nic_gbps_per_gpu": _r(required_gbps(d, est, m.nvlink_gbps, budget), 3)})
    return out


def _shape(s) -> dict | None:
    if s is None:
        return None
    d = dataclasses.asdict(s)
    d.update(kv_heads=s.groups, kv_channels=s.d, ffn=s.dense_ffn, moe_ffn=s.expert_ffn if s.is_moe else None,
             dense_layers=s.dense_layers, classic=s.classic, expert_counts=list(s.expert_counts) or None)
    return d


def _as_json(m, budget: float) -> dict:
    j, est = m.job, m.estimate
    fpt = m.flops_per_token
    return {
        "file": j.file, "name": j.label, "framework": j.framework, "world_size": m.world,
        "parallel": {k: m.parallel.get(k) for k in ("tp", "pp", "dp", "cp", "ep", "etp", "vpp")},
        "micro_batch": j.int("micro_batch"), "global_batch": j.int("global_batch"),
        "microbatches_per_step": m.microbatches, "shape": _shape(m.shape),
        "params": None if m.params is None else round(m.params),
        "params_activated": None if m.params_activated is None else round(m.params_activated),
        "flops_per_token": {**{k: float(f"{v:.6g}") for k, v in fpt.items()},
                            "total": float(f"{sum(fpt.values()):.6g}")} if fpt else None,
        "step_flops": None if m.step_flops is None else float(f"{m.step_flops:.6g}"),
        "step_flops_classic": None if m.flops_classic is None else float(f"{m.flops_classic:.6g}"),
        "hardware_flops": None if est is None else float(f"{est.hardware_flops:.6g}"),
        "gpu": m.gpu, "compute_efficiency": m.mfu, "mfu": m.mfu, "nvlink_domain": m.domain,
        "time": None if est is None else {
            "compute_s": _r(est.compute_s), "bubble_s": _r(est.bubble_s), "exposed_comm_s": _r(est.exposed_s),
            "step_s": _r(est.step_s), "modelled_mfu": _r(est.mfu(m.world, _peak(m)))},
        "step_time_s": _r(m.step_time_s),
        "bubble": {"wall_share": m.bubble_wall, "of_ideal_compute": m.bubble_ideal},
        "nic_gbps_per_gpu": m.nic_gbps_per_gpu, "nvlink_gbps": m.nvlink_gbps,
        "required_nic_gbps_per_gpu": m.required_nic_gbps, "budget": budget,
        "dimensions": _dimensions(m, budget),
        "traffic": [t.as_dict() for t in m.traffic],
        "missing": m.missing,
        "unknown": {k: str(v) for k, v in j.unknown.items()},
    }


def _peak(m) -> float:
    from netlint import hardware

    g = hardware.gpu(m.gpu) if m.gpu else None
    return g.bf16_dense_tflops if g else 0.0


def _fmt_bytes(n: float) -> str:
    for unit, div in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= div:
            return f"{n / div:.2f} {unit}"
    return f"{n:.0f} B"


def _s(v) -> str:
    return "-" if v is None else f"{v:.3f} s"


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


def _shown_files(doc, ws):
    """``doc`` with every ``file`` and ``name`` that names files of the run shown as `netlint check`
    shows them (netlint.display); other names are left as they are."""
    from netlint.display import shown_label

    if isinstance(doc, list):
        return [_shown_files(v, ws) for v in doc]
    if not isinstance(doc, dict):
        return doc
    return {k: shown_label(ws.root, v, ws.sources) if k in ("file", "name") and isinstance(v, str)
            else _shown_files(v, ws) for k, v in doc.items()}


def _as_text(models, has_inventory: bool, budget: float, name=str) -> str:
    if not models:
        return "no training jobs found\n"
    out = []
    for m in models:
        j, p, est = m.job, m.parallel, m.estimate
        def size(k: str):   # a size the job leaves to the run is '?', not the default it was modelled with
            return "?" if p.get(k) is None or (k in j.unknown and getattr(j, k, None) is None) else p.get(k)

        out.append(f"{name(j.label)} ({j.framework}): world {m.world if m.world is not None else '?'}, "
                   f"TP {size('tp')} PP {size('pp')} DP {size('dp')} CP {size('cp')} EP {size('ep')}")
        facts = []
        if m.params:
            act = f" ({m.params_activated / 1e9:.2f}B activated per token)" if m.params_activated != m.params else ""
            facts.append(f"{m.params / 1e9:.2f}B parameters{act}")
        if m.step_flops:
            per = sum(m.flops_per_token.values())
            facts.append(f"{m.step_flops:.3g} FLOPs/step ({per:.3g} per token, causal attention)")
        if m.flops_classic:
            facts.append(f"classic formula {m.flops_classic:.3g}")
        if facts:
            out.append("  " + "; ".join(facts))
        if est is not None:
            out.append(f"  step {est.step_s:.3f} s on {m.gpu}: compute {est.compute_s:.3f} s at {m.mfu:.0%} of peak"
                       f" + bubble {est.bubble_s:.3f} s + exposed communication {est.exposed_s:.3f} s"
                       f" (modelled MFU {est.mfu(m.world, _peak(m)):.0%})" if est.step_s is not None else
                       f"  compute {est.compute_s:.3f} s on {m.gpu} at {m.mfu:.0%} of peak")
        if m.bubble_wall is not None:
            out.append(f"  bubble {m.bubble_wall:.1%} of the step ({m.bubble_ideal:.1%} of ideal compute)")
        if not has_inventory:
            out.append("  (no inventory: links and times need one; pass --inventory)")
        if j.unknown:
            by_reason: dict[str, list[str]] = {}   # sizes unknown for one reason are listed together
            for k, v in j.unknown.items():
                by_reason.setdefault(v.reason, []).append(k)
            out.append("  unknown: " + "; ".join(f"{', '.join(ks)} ({why})" for why, ks in by_reason.items()))
        dims = _dimensions(m, budget)
        if dims:
            rows = [("dim", "group", "link", "bytes/GPU/step", "via NICs", "comm time", "hidden by", "exposed",
                     f"NIC needed ({budget:.0%} budget)")]
            for d in dims:
                need = d["required_nic_gbps_per_gpu"]
                rows.append((d["size"], str(d["group_size"]), d["link"], _fmt_bytes(d["bytes_per_gpu"]),
                             _fmt_bytes(d["fabric_bytes_per_gpu"]) if d["link"] == "fabric" else "-", _s(d["time_s"]),
                             _s(d["window_s"]) if d["window_s"] else "-", _s(d["exposed_s"]),
                             "-" if need is None else f"{need:.2f} GB/s"))
            out += _table(rows)
        elif m.traffic:
            rows = [("dim", "collective", "group", "link", "bytes/GPU/step")]
            rows += [(t.dimension, t.collective, str(t.group_size), t.link, _fmt_bytes(t.bytes_per_gpu)) for t in m.traffic]
            out += _table(rows)
        if m.required_nic_gbps is not None and m.nic_gbps_per_gpu:
            out.append(f"  NIC: {m.required_nic_gbps:.2f} GB/s per GPU even if all traffic overlapped, available "
                       f"{m.nic_gbps_per_gpu:.2f} GB/s ({m.nic_label})")
        out.append("")
    return "\n".join(out)


def _default_mfu() -> float:
    from netlint.fabric.model import DEFAULT_MFU

    return DEFAULT_MFU
