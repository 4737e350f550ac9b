"""SARIF 2.1.0 for GitHub code scanning and editors.

Follows research/linter-anchors.md §2a: relative ``artifactLocation.uri`` with ``uriBaseId``,
1-based full regions, ``rules[]`` metadata with help and ``helpUri``, a line-independent
``partialFingerprints`` entry of netlint's own (``primaryLocationLineHash`` is left to GitHub's
upload action), and suppressed findings left out unless asked for (GitHub ignores SARIF
``suppressions`` and would open alerts for them).
"""

from __future__ import annotations

import hashlib
import json
from urllib.parse import quote

LEVELS = {"error": "error", "warning": "warning", "info": "note"}
MAX_RESULTS = 25_000  # GitHub code scanning: results per run


def _uri(path: str) -> str:
    return quote(path.replace("\\", "/"), safe="/._-~")


def _region(span) -> dict:
    line = max(span.line, 1)
    col = max(span.col, 1)
    end_line = max(span.end_line, line)
    end_col = max(span.end_col, 1)
    if end_line == line and end_col <= col:
        end_col = col + 1
    return {"startLine": line, "startColumn": col, "endLine": end_line, "endColumn": end_col}


def _location(span, message: str | None = None, ident: int | None = None) -> dict:
    loc: dict = {"physicalLocation": {"artifactLocation": {"uri": _uri(span.file), "uriBaseId": "%SRCROOT%"},
                                      "region": _region(span)}}
    if ident is not None:
        loc["id"] = ident
    if message:
        loc["message"] = {"text": message}
    return loc


def fingerprint(f) -> str:
    """Stable across line moves: file, rule and the finding's logical identity."""
    basis = f"{f.file}\0{f.code}\0{f.key or f.message}"
    return hashlib.sha256(basis.encode()).hexdigest()[:32]


def rule_descriptor(rule_cls) -> dict:
    docs = rule_cls.docs()
    return {
        "id": rule_cls.code,
        "name": rule_cls.name,
        "shortDescription": {"text": rule_cls.summary},
        "fullDescription": {"text": docs.split("\n\n")[0].replace("\n", " ")},
        "help": {"text": docs, "markdown": docs},
        "helpUri": rule_cls.help_uri(),
        "defaultConfiguration": {"level": LEVELS[str(rule_cls.severity)]},
        "properties": {"tags": [rule_cls.family(), *rule_cls.tags], "precision": "high",
                       "problem.severity": "recommendation" if str(rule_cls.severity) == "info"
                       else str(rule_cls.severity)},
    }


def _fix(f) -> dict:
    by_file: dict[str, list] = {}
    for e in f.fix.edits:
        by_file.setdefault(e.span.file, []).append(
            {"deletedRegion": _region(e.span), "insertedContent": {"text": e.replacement}})
    return {"description": {"text": f.fix.description},
            "artifactChanges": [{"artifactLocation": {"uri": _uri(p), "uriBaseId": "%SRCROOT%"},
                                 "replacements": reps} for p, reps in by_file.items()]}


def build(report, options) -> dict:
    from netlint import __version__
    from netlint.rules.base import load_rules

    include_suppressed = getattr(options, "sarif_include_suppressed", False)
    findings = [f for f in report.findings if include_suppressed or not f.suppressed]
    findings = findings[:MAX_RESULTS]
    registry = load_rules()
    used = sorted({f.code for f in findings if f.code in registry})
    index = {code: i for i, code in enumerate(used)}
    results = []
    for f in findings:
        res: dict = {"ruleId": f.code, "level": LEVELS[str(f.severity)],
                     "message": {"text": f.message},
                     "locations": [_location(f.span)],
                     "partialFingerprints": {"netlintFingerprint/v1": fingerprint(f)}}
        if f.code in index:
            res["ruleIndex"] = index[f.code]
        if f.related:
            res["relatedLocations"] = [_location(r.span, r.message, i) for i, r in enumerate(f.related, 1)]
        if f.fix is not None and all(e.doc_path is None for e in f.fix.edits):
            res["fixes"] = [_fix(f)]
        if f.suppressed is not None:
            res["suppressions"] = [{"kind": "inSource", "justification": f.suppressed}]
        results.append(res)
    root_uri = report.config.root.as_uri().rstrip("/") + "/"
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "netlint", "version": __version__,
                                "semanticVersion": __version__,
                                "informationUri": "https://netlint.dev",
                                "rules": [rule_descriptor(registry[c]) for c in used]}},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": root_uri}},
            "columnKind": "unicodeCodePoints",
            "results": results,
            "invocations": [{"executionSuccessful": not report.internal_error,
                             "exitCode": getattr(options, "exit_code", 0)}],
        }],
    }


def render(report, options) -> str:
    return json.dumps(build(report, options), indent=2) + "\n"
