"""``netlint model [PATH...]``: the throughput model of each training job found under PATH.

Per job a table: parallel dimension, collective, group size, link (NVLink or fabric), bytes per GPU
per step, time at the available bandwidth and share of the step (netlint.fabric, formulas in
research/modeling.md). ``--format json`` emits ``{"jobs": [{"file", "world_size", "parallel":
{"tp","pp","dp","cp","ep"}, "step_flops", "step_time_s", "traffic": [{"dimension", "collective",
"group_size", "link", "bytes_per_gpu", "time_s", …}], …}]}``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def add_parser(sub) -> None:
    p = sub.add_parser("model", help="traffic per parallel group and step time of each training job")
    p.add_argument("paths", nargs="*", type=Path, help="files or directories (default: .)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--inventory", type=Path, help="cluster inventory file")
    p.add_argument("--config", type=Path, help="configuration file (default: found upward)")
    p.add_argument("--mfu", type=float, help="model FLOPs utilisation for the step time (default: config or 0.40)")


def run(args) -> int:
    from netlint.engine import Options, lint
    from netlint.fabric.model import analyze
    from netlint.models.job import training_jobs

    paths = args.paths or [Path(".")]
    missing = [p for p in paths if not p.exists()]
    if missing:
        sys.stderr.write(f"netlint: error: no such file or directory: {missing[0]}\n")
        return 2
    report = lint(Options(paths=paths, config_file=args.config, inventory=args.inventory, select=["NL"]))
    ws = report.workspace
    mfu = args.mfu or ws.config.settings.mfu
    models = [analyze(j, ws.inventory, mfu) for j in training_jobs(ws)]
    if args.format == "json":
        sys.stdout.write(json.dumps({"jobs": [_as_json(m) for m in models]}, indent=2) + "\n")
    else:
        sys.stdout.write(_as_text(models, ws.inventory is not None))
    return 0


def _as_json(m) -> dict:
    j = m.job
    return {
        "file": j.file, "name": j.label, "framework": j.framework, "world_size": m.world,
        "parallel": {k: m.parallel.get(k) for k in ("tp", "pp", "dp", "cp", "ep")},
        "micro_batch": j.int("micro_batch"), "global_batch": j.int("global_batch"),
        "microbatches_per_step": m.microbatches, "params": None if m.params is None else round(m.params),
        "step_flops": None if m.step_flops is None else float(f"{m.step_flops:.6g}"),
        "step_time_s": None if m.step_time_s is None else round(m.step_time_s, 4), "mfu": m.mfu, "gpu": m.gpu,
        "nvlink_domain": m.domain,
        "bubble": {"wall_share": m.bubble_wall, "of_ideal_compute": m.bubble_ideal},
        "nic_gbps_per_gpu": m.nic_gbps_per_gpu, "required_nic_gbps_per_gpu": m.required_nic_gbps,
        "traffic": [t.as_dict() for t in m.traffic],
        "unknown": {k: str(v) for k, v in j.unknown.items()},
    }


def _fmt_bytes(n: float) -> str:
    for unit, div in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= div:
            return f"{n / div:.2f} {unit}"
    return f"{n:.0f} B"


def _as_text(models, has_inventory: bool) -> str:
    if not models:
        return "no training jobs found\n"
    out = []
    for m in models:
        j = m.job
        p = m.parallel
        head = (f"{j.label} ({j.framework}): world {m.world if m.world is not None else '?'}, "
                f"TP {p.get('tp')} PP {p.get('pp')} DP {p.get('dp') if p.get('dp') is not None else '?'} "
                f"CP {p.get('cp')} EP {p.get('ep')}")
        out.append(head)
        facts = []
        if m.params:
            facts.append(f"{m.params / 1e9:.2f}B parameters")
        if m.step_flops:
            facts.append(f"{m.step_flops:.3g} FLOPs/step")
        if m.step_time_s:
            facts.append(f"step {m.step_time_s:.3f} s on {m.gpu} at MFU {m.mfu:.0%}")
        if m.bubble_wall is not None:
            facts.append(f"bubble {m.bubble_wall:.1%} of the step ({m.bubble_ideal:.1%} of ideal compute)")
        if facts:
            out.append("  " + "; ".join(facts))
        if not has_inventory:
            out.append("  (no inventory: links and times need one; pass --inventory)")
        if j.unknown:
            out.append("  unknown: " + "; ".join(f"{k} ({v.reason})" for k, v in j.unknown.items()))
        if m.traffic:
            rows = [("dim", "collective", "group", "link", "bytes/GPU/step", "via NICs", "time", "share")]
            for t in m.traffic:
                rows.append((t.dimension, t.collective, str(t.group_size), t.link, _fmt_bytes(t.bytes_per_gpu),
                             _fmt_bytes(t.fabric_bytes_per_gpu) if t.link == "fabric" else "-",
                             "-" if t.time_s is None else f"{t.time_s:.3f} s",
                             "-" if t.share is None else f"{t.share:.1%}"))
            widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
            for r in rows:
                out.append("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
            if m.required_nic_gbps is not None and m.nic_gbps_per_gpu:
                out.append(f"  NIC: required {m.required_nic_gbps:.2f} GB/s per GPU, available "
                           f"{m.nic_gbps_per_gpu:.2f} GB/s ({m.nic_label})")
        out.append("")
    return "\n".join(out)
