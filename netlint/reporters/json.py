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
    return out


def render(report, options) -> str:
    from netlint import __version__

    return json.dumps({"version": __version__,
                       "files": report.files,
                       "findings": [finding_dict(f) for f in report.findings]}, indent=2) + "\n"
