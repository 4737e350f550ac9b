"""``netlint path [PATH...]``: the RoCE path of each job, hop by hop, and where it breaks.

Per launch (a training job, or an env file no job takes in) and inventory node group: the traffic
class NCCL (or the NIC) puts on RoCE packets, the NIC's trust, priority, PFC and DCQCN, each
inventory switch's DSCP→TC, PG/queue, PFC and ECN for that class, and the CNPs' class. A hop that
breaks names the rule that reports it (``netlint check`` gives that finding at the place to fix).

``--format json`` emits ``{"chains": [{"job", "node_group", "nic_files", "hops": [{"step", "value",
"status", "owner", "note", "location"}], "break"}]}``; ``status`` is ``ok``, ``break`` or ``unknown``.
Exit status 0 when no chain breaks, 1 when one does.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

MARK = {"ok": "ok", "break": "BREAK", "unknown": "?"}


def add_parser(sub) -> None:
    p = sub.add_parser("path", help="the RoCE path of each job (NCCL → NIC → switch → CNP) and where it breaks")
    p.add_argument("paths", nargs="*", type=Path, help="files or directories (default: .)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--inventory", type=Path, help="cluster inventory file")
    p.add_argument("--config", type=Path, help="configuration file (default: found upward)")


def run(args) -> int:
    from netlint.commands.workspace_run import workspace_report
    from netlint.nic.path import chains

    report = workspace_report(args)
    if report is None:
        return 2
    found = chains(report.workspace)
    _show_files(found, report.workspace)
    if args.format == "json":
        sys.stdout.write(json.dumps({"chains": [c.as_dict() for c in found]}, indent=2) + "\n")
    else:
        sys.stdout.write(as_text(found))
    return 1 if any(c.first_break is not None for c in found) else 0


def _show_files(found, ws) -> None:
    """Name files as `netlint check` does, from the current directory (netlint.display): the chains
    are printed, not joined further."""
    import dataclasses

    from netlint.display import namer, shown_label

    name = namer(ws.root)
    for c in found:
        c.job = shown_label(ws.root, c.job, ws.sources) if c.job else c.job
        c.nic_files = [name(f) for f in c.nic_files]
        for i, h in enumerate(c.hops):
            if h.span is not None:
                c.hops[i] = dataclasses.replace(h, span=h.span._replace(file=name(h.span.file)))


def as_text(found) -> str:
    if not found:
        return "No RoCE path: no launch, inventory or NIC file found.\n"
    lines = []
    for c in found:
        head = f"RoCE path of {c.job or '(no launch)'}"
        if c.group:
            head += f", node group {c.group}"
        lines.append(head + (f" (NIC files: {', '.join(c.nic_files)})" if c.nic_files else ""))
        width = max(len(h.step) for h in c.hops)
        for h in c.hops:
            row = f"  {MARK[h.status]:<5} {h.step:<{width}}  {h.value}"
            loc = _loc(h)
            if loc:
                row += f"  [{loc}]"
            if h.status == "break":
                row += f"  {h.owner}" + (f": {h.note}" if h.note else "")
            elif h.note:
                row += f"  ({h.note})"
            lines.append(row)
        brk = c.first_break
        lines.append(f"  breaks first at: {brk.step} ({brk.owner})" if brk is not None else "  no break found")
        lines.append("")
    return "\n".join(lines)


def _loc(h) -> str | None:
    d = h.as_dict()
    return d["location"]
