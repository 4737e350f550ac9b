"""Machine-readable findings: one JSON object with a ``findings`` array (stable keys)."""

from __future__ import annotations

import json


def span_dict(span, where=str) -> dict:
    """``where`` names the file as printed (netlint.display); the span keeps the project path."""
    return {"file": where(span.file), "line": span.line, "column": span.col,
            "end_line": span.end_line, "end_column": span.end_col}


def finding_dict(f, where=str) -> dict:
    out = {"code": f.code, "severity": str(f.severity), "message": f.message, **span_dict(f.span, where),
           "key": f.key,
           "related": [{"message": r.message, **span_dict(r.span, where)} for r in f.related]}
    if f.fix is not None:
        out["fix"] = {"description": f.fix.description,
                      "applicability": "safe" if f.fix.safe else "unsafe",
                      "edits": [{**span_dict(e.span, where), "replacement": e.replacement,
                                 **({"path": list(e.doc_path)} if e.doc_path else {})}
                                for e in f.fix.edits]}
    if f.suppressed is not None:
        out["suppressed"] = f.suppressed
        info = f.extra.get("suppression") or {}
        out["suppression"] = {"kind": "baseline" if info.get("kind") == "external" else "inline",
                              "reason": info.get("justification", f.suppressed)}
    return out


def nccl_settings(ws, where=str) -> list[dict]:
    """Each NCCL variable the checked files set, once, where it is written: ``name``, ``value`` (null when
    netlint cannot know it), ``how`` (export, k8s, helm, mpirun-x, dockerfile, …), ``format`` and
    ``scope`` of its env (``MPIJob/…/launcher``, ``ncclTest.env``), the name's file/line/column and the
    value's ``value_line``/``value_column``."""
    out, seen = [], set()
    for env in getattr(ws, "nccl_envs", ()):
        for var in getattr(env, "variables", ()):
            name = var.name.span
            if "NCCL" not in var.key.upper() or (name.file, name.start, name.line, name.col) in seen:
                continue
            seen.add((name.file, name.start, name.line, name.col))
            at = var.span
            out.append({"name": var.key, "value": var.known, "how": var.how, "format": env.format,
                        "scope": env.scope, "file": where(name.file), "line": name.line, "column": name.col,
                        "value_line": at.line, "value_column": at.col})
    return out


def render(report, options) -> str:
    """Every finding, suppressed ones included (with ``suppressed``/``suppression``); with
    ``--statistics`` a ``statistics`` object counts the unsuppressed findings per rule code;
    ``nccl_settings`` lists the NCCL variables read (:func:`nccl_settings`)."""
    from collections import Counter

    from netlint import __version__
    from netlint.display import namer

    where = namer(report.config.root)  # paths as the text output prints them (netlint.display)
    doc = {"version": __version__,
           "files": [where(f) for f in report.files],
           "findings": [finding_dict(f, where) for f in report.findings],
           "nccl_settings": nccl_settings(getattr(report, "workspace", None), where)}
    if getattr(options, "statistics", False):
        doc["statistics"] = dict(sorted(Counter(f.code for f in report.findings if not f.suppressed).items()))
    if getattr(options, "exit_code", None) is not None:
        doc["exit_code"] = options.exit_code
    return json.dumps(doc, indent=2) + "\n"
