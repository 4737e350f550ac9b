"""SARIF 2.1.0 for GitHub code scanning and editors.

Follows GitHub's "SARIF support for code scanning"
(https://docs.github.com/en/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning)
and the OASIS SARIF 2.1.0 standard:

* ``tool.driver`` with name, version and a ``rules[]`` descriptor for every ``ruleId`` in the
  results (short and full description, ``help.text`` and ``help.markdown``, default level, tags,
  precision, ``problem.severity``); results point at it with ``ruleIndex``. ``helpUri`` and
  ``informationUri`` only with ``docs-url`` configured (netlint/rule_pages.py).
* Paths relative to the repository root (``%SRCROOT%``, defined in ``originalUriBaseIds``), full
  1-based regions with columns in UTF-16 code units (``columnKind: utf16CodeUnits``), which is what
  GitHub expects; related locations, linked from the message (``[text](id)``); ``fixes[]`` for text
  fixes.
* ``partialFingerprints["netlintFingerprint/v1"]``: a hash of file, rule and the finding's logical
  key — stable when lines move. ``primaryLocationLineHash`` is left to GitHub's upload action: it
  computes it from the checked-out file and warns when a tool sets a different one.
* Suppressed findings (inline or baseline) are left out: GitHub ignores SARIF ``suppressions`` and
  would open alerts for them. ``--sarif-include-suppressed`` keeps them, with ``suppressions[]``.
* GitHub's limits: at most 25,000 results per run (the most severe are kept, and the run says how
  many were left out), 1,024 characters for descriptions, 255 for a rule name, 20 tags per rule.
* ``invocations[0]`` carries the exit code netlint returns.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from urllib.parse import quote

from netlint.reporters import absolute, repo_path, repo_root

LEVELS = {"error": "error", "warning": "warning", "info": "note"}
MAX_RESULTS = 25_000      # GitHub code scanning: results per run
MAX_DESCRIPTION = 1024    # shortDescription / fullDescription text
MAX_NAME = 255            # rule name
MAX_TAGS = 20             # tags per rule
MAX_RELATED = 1000        # relatedLocations per result
SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"


def _clip(text: str, limit: int) -> str:
    text = text.strip() or "-"
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class _Paths:
    """Display paths → artifact locations, and code-point columns → UTF-16 columns."""

    def __init__(self, report):
        self.report = report
        self.top = repo_root(report)
        self._lines: dict[str, list[str] | None] = {}

    def artifact(self, file: str) -> dict:
        rel = repo_path(self.report, file, self.top)
        if rel is None:
            return {"uri": absolute(self.report, file).as_uri()}
        return {"uri": quote(rel, safe="/._-~") or ".", "uriBaseId": SRCROOT}  # never "": GitHub rejects it

    def _line(self, file: str, line: int) -> str | None:
        if file not in self._lines:
            text = self.report.workspace.text(file)
            self._lines[file] = text.split("\n") if text is not None else None
        lines = self._lines[file]
        return lines[line - 1] if lines is not None and 0 < line <= len(lines) else None

    def col(self, file: str, line: int, col: int) -> int:
        text = self._line(file, line)
        if text is None or text.isascii():
            return col
        head = text[: max(col - 1, 0)]
        return len(head.encode("utf-16-le")) // 2 + 1 + max(col - 1 - len(text), 0)

    def region(self, span) -> dict:
        line = max(span.line, 1)
        col = max(span.col, 1)
        end_line = max(span.end_line, line)
        end_col = max(span.end_col, 1)
        if end_line == line and end_col <= col:
            end_col = col + 1
        return {"startLine": line, "startColumn": self.col(span.file, line, col),
                "endLine": end_line, "endColumn": self.col(span.file, end_line, end_col)}

    def location(self, span, message: str | None = None, ident: int | None = None) -> dict:
        loc: dict = {"physicalLocation": {"artifactLocation": self.artifact(span.file),
                                          "region": self.region(span)}}
        if ident is not None:
            loc["id"] = ident
        if message:
            loc["message"] = {"text": message}
        return loc


def fingerprint(f, occurrence: int = 0) -> str:
    """Stable across line moves: file, rule and the finding's logical identity (its key; the
    message when a rule gives none). ``occurrence`` tells apart findings that share all three."""
    basis = f"{f.file}\0{f.code}\0{f.key or f.message}"
    digest = hashlib.sha256(basis.encode()).hexdigest()[:32]
    return f"{digest}:{occurrence + 1}"


def _markdown(rule_cls, uri: str | None) -> str:
    from netlint.rule_pages import to_markdown

    text = f"**{rule_cls.code} {rule_cls.name}**: {rule_cls.summary}\n\n{to_markdown(rule_cls.docs())}"
    return text + (f"\n\n[Rule documentation]({uri})" if uri else "")


def rule_descriptor(rule_cls, docs_url: str | None = None) -> dict:
    """``helpUri`` only when the user configured where the rule pages live (``docs-url``)."""
    docs = rule_cls.docs()
    uri = rule_cls.help_uri(docs_url)
    first = docs.split("\n\n")[0].replace("\n", " ")
    severity = str(rule_cls.severity)
    tags = list(dict.fromkeys(t for t in ("netlint", rule_cls.family(), *rule_cls.tags) if t))[:MAX_TAGS]
    descriptor = {
        "id": rule_cls.code,
        "name": _clip(rule_cls.name, MAX_NAME),
        "shortDescription": {"text": _clip(rule_cls.summary, MAX_DESCRIPTION)},
        "fullDescription": {"text": _clip(first, MAX_DESCRIPTION)},
        "help": {"text": docs or rule_cls.summary, "markdown": _markdown(rule_cls, uri)},
        "helpUri": uri,
        "defaultConfiguration": {"level": LEVELS[severity]},
        "properties": {"tags": tags, "precision": "high",
                       "problem.severity": "recommendation" if severity == "info" else severity},
    }
    if uri is None:
        del descriptor["helpUri"]
    return descriptor


def _unknown_descriptor(code: str, severity: str) -> dict:
    """A rule netlint's registry does not know (a finding from a plugin or a policy file that did
    not register): SARIF still needs a descriptor for every ``ruleId``."""
    text = f"{code}: see the finding's message"
    return {"id": code, "name": code.lower(), "shortDescription": {"text": text},
            "fullDescription": {"text": text}, "help": {"text": text, "markdown": text},
            "defaultConfiguration": {"level": LEVELS.get(severity, "warning")},
            "properties": {"tags": ["netlint"], "precision": "medium",
                           "problem.severity": "recommendation" if severity == "info" else severity}}


def _fix(f, paths: _Paths) -> dict | None:
    by_file: dict[str, list] = {}
    for e in f.fix.edits:
        if e.doc_path is not None or e.span.start < 0:
            return None  # a structural edit (set a key path) has no text region to describe
        by_file.setdefault(e.span.file, []).append(
            {"deletedRegion": paths.region(e.span), "insertedContent": {"text": e.replacement}})
    if not by_file:
        return None
    return {"description": {"text": f.fix.description + ("" if f.fix.safe else " (unsafe: changes the run "
                                                             "or the fabric)")},
            "artifactChanges": [{"artifactLocation": paths.artifact(p), "replacements": reps}
                                for p, reps in by_file.items()]}


def _message(f) -> str:
    text = f.message.strip() or f.code
    if f.related:
        links = "; ".join(f"[{_link_text(r.message or 'related location')}]({i})"
                          for i, r in enumerate(f.related[:MAX_RELATED], 1))
        text += f" (see {links})"
    return text


def _link_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _suppression(f) -> dict:
    info = f.extra.get("suppression") or {}
    out = {"kind": info.get("kind", "inSource"), "status": "accepted"}
    justification = info.get("justification", f.suppressed or "")
    if justification:
        out["justification"] = justification
    return out


def _docs_url(report) -> str | None:
    config = getattr(report, "config", None)
    return getattr(getattr(config, "settings", None), "docs_url", None)


def build(report, options) -> dict:
    from netlint import __version__
    from netlint.rules.base import load_rules

    include_suppressed = getattr(options, "sarif_include_suppressed", False)
    findings = [f for f in report.findings if include_suppressed or not f.suppressed]
    left_out = 0
    if len(findings) > MAX_RESULTS:  # keep the most severe; GitHub shows the top 5,000 anyway
        ranked = sorted(findings, key=lambda f: -int(f.severity))
        kept = set(map(id, ranked[:MAX_RESULTS]))
        left_out = len(findings) - MAX_RESULTS
        findings = [f for f in findings if id(f) in kept]
    registry = load_rules()
    docs_url = _docs_url(report)
    used = sorted({f.code for f in findings}, key=lambda c: (c not in registry, c))
    index = {code: i for i, code in enumerate(used)}
    descriptors = []
    for code in used:
        if code in registry:
            descriptors.append(rule_descriptor(registry[code], docs_url))
        else:
            first = next(f for f in findings if f.code == code)
            policy = first.extra.get("policy") if first.extra else None
            if policy:  # a policy: its summary, docs and tags from the policy file
                from netlint.policy.catalog import sarif_descriptor

                descriptors.append(sarif_descriptor(code, policy, LEVELS))
            else:
                descriptors.append(_unknown_descriptor(code, str(first.severity)))
    paths = _Paths(report)
    seen: Counter = Counter()
    results = []
    for f in findings:
        basis = (f.file, f.code, f.key or f.message)
        res: dict = {"ruleId": f.code, "ruleIndex": index[f.code], "level": LEVELS[str(f.severity)],
                     "message": {"text": _message(f)},
                     "locations": [paths.location(f.span)],
                     "partialFingerprints": {"netlintFingerprint/v1": fingerprint(f, seen[basis])}}
        seen[basis] += 1
        if f.related:
            res["relatedLocations"] = [paths.location(r.span, r.message, i)
                                       for i, r in enumerate(f.related[:MAX_RELATED], 1)]
        if f.fix is not None:
            fix = _fix(f, paths)
            if fix is not None:
                res["fixes"] = [fix]
        if f.suppressed is not None:
            res["suppressions"] = [_suppression(f)]
        results.append(res)
    invocation: dict = {"executionSuccessful": not report.internal_error,
                        "exitCode": int(getattr(options, "exit_code", 0) or 0)}
    if left_out:
        invocation["toolExecutionNotifications"] = [{
            "level": "warning",
            "message": {"text": f"{left_out} less severe results were left out: GitHub code scanning "
                                f"accepts at most {MAX_RESULTS} results per run"}}]
    root_uri = paths.top.as_uri().rstrip("/") + "/"
    driver: dict = {"name": "netlint", "version": __version__, "semanticVersion": __version__}
    if docs_url:  # the rules index (docs/rules/README.md) where the user publishes it
        driver["informationUri"] = docs_url
    driver["rules"] = descriptors
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver},
            "originalUriBaseIds": {SRCROOT: {"uri": root_uri}},
            "columnKind": "utf16CodeUnits",
            "results": results,
            "invocations": [invocation],
        }],
    }


def render(report, options) -> str:
    return json.dumps(build(report, options), indent=2, ensure_ascii=False) + "\n"
