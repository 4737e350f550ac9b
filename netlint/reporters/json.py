"""Machine-readable findings: one JSON object with a ``findings`` array (stable keys)."""

from __future__ import annotations

import json


def span_dict(span) -> dict:
    return {"file": span.file, "line": span.line, "column": span.col,
            "end_line": span.end_line, "end_column": span.end_col}


def finding_dict(f) -> dict:
    out = {"code": f.code, "severity": str(f.severity), "message": f.message, **span_dict(f.span),
           "key": f.key,
           "related": [{"message": r.message, **span_dict(r.span)} for r in f.related]}
    if f.fix is not None:
        out["fix"] = {"description": f.fix.description,
                      "applicability": "safe" if f.fix.safe else "unsafe",
                      "edits": [{**span_dict(e.span), "replacement": e.replacement,
                                 **({"path": list(e.doc_path)} if e.doc_path else {})}
                                for e in f.fix.edits]}
    if f.suppressed is not None:
        out["suppressed"] = f.suppressed
        info = f.extra.get("suppression") or {}
        out["suppression"] = {"kind": "baseline" if info.get("kind") == "external" else "inline",
                              "reason": info.get("justification", f.suppressed)}
    return out


def render(report, options) -> str:
    """Every finding, suppressed ones included (with ``suppressed``/``suppression``); with
    ``--statistics`` a ``statistics`` object counts the unsuppressed findings per rule code."""
    from collections import Counter

    from netlint import __version__

    doc = {"version": __version__,
           "files": report.files,
           "findings": [finding_dict(f) for f in report.findings]}
    if getattr(options, "statistics", False):
        doc["statistics"] = dict(sorted(Counter(f.code for f in report.findings if not f.suppressed).items()))
    if getattr(options, "exit_code", None) is not None:
        doc["exit_code"] = options.exit_code
    return json.dumps(doc, indent=2) + "\n"
