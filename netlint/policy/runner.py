"""Run policies over the workspace view; findings look exactly like built-in ones."""

from __future__ import annotations

import re
from typing import Any

from netlint.findings import Finding, Related, Severity
from netlint.located import Span, plain
from netlint.policy.cel import CelError
from netlint.policy.files import CompiledPolicy, load, resolve, severity_of
from netlint.policy.view import View

PLACEHOLDER = re.compile(r"\{((?:self|workspace)(?:\.[A-Za-z_]\w*)*)\}")


def run_policies(ws) -> list[Finding]:
    from netlint.discovery import display_path

    files, findings = resolve(ws.config.settings.policies, ws.config.root)
    compiled: list[CompiledPolicy] = []
    for path in files:
        got, problems = load(path, display_path(path, ws.root))
        compiled.extend(got)
        findings.extend(problems)
    if not compiled:
        return findings
    view = View()
    data = view.build(ws)
    for policy in compiled:
        try:
            findings.extend(evaluate(policy, data, view))
        except Exception as exc:  # a JSONPath filter or the engine failing unexpectedly: located, not a crash
            where = policy.policy.assert_ or policy.policy.template or policy.policy.id
            findings.append(Finding("NL032", f"{policy.code}: policy failed: {type(exc).__name__}: {exc}",
                                    where.span, key=f"{policy.code}:runtime"))
    return findings


def matches(policy: CompiledPolicy, data: dict) -> list[tuple[tuple, Any]]:
    out = []
    for query, _ in policy.paths:
        for node in query.finditer(data):
            out.append((tuple(_location(node)), node.value))
    return out


def _location(node) -> list:
    loc = node.location
    return list(loc() if callable(loc) else loc)


def evaluate(policy: CompiledPolicy, data: dict, view: View) -> list[Finding]:
    nodes = matches(policy, data)
    p = policy.policy
    if policy.program is None:  # match-across
        return _match_across(policy, nodes, view)
    out = []
    run = policy.program.bind({"workspace": data} if policy.program.uses_workspace else {})
    for loc, value in nodes:
        try:
            ok = run({"self": value})
        except CelError as exc:
            where = p.assert_ or p.template
            node = view.span_at(loc)
            out.append(Finding("NL032", f"{policy.code}: CEL failed on {_dotted(loc)}: {exc.message} "
                               "(guard optional fields with has())", where.span,
                               related=(Related(node, "the node it failed on"),) if node else (),
                               key=f"{policy.code}:runtime:{_dotted(loc)}"))
            continue
        if not isinstance(ok, bool):
            node = view.span_at(loc)
            where = p.assert_ or p.template
            out.append(Finding("NL034", f"{policy.code}: the expression gave {type(ok).__name__} {ok!r} on "
                               f"{_dotted(loc)}, not true or false", where.span,
                               related=(Related(node, "the node it was evaluated on"),) if node else (),
                               key=f"{policy.code}:not-bool:{_dotted(loc)}"))
        elif ok is not True:
            out.append(_finding(policy, loc, value, data, view))
    return out


def _match_across(policy: CompiledPolicy, nodes, view: View) -> list[Finding]:
    field = policy.policy.parameters["field"]
    values = []
    for loc, value in nodes:
        got = _lookup(value, field.split("."))
        if got is not None:
            values.append((loc, value, got))
    counts: dict[str, int] = {}
    for _, _, got in values:
        counts[repr(got)] = counts.get(repr(got), 0) + 1
    if len(counts) <= 1:
        return []
    majority = max(counts, key=lambda k: (counts[k], k))
    return [_finding(policy, loc, value, {}, view, extra=f" ({field} is {got!r}, most have {majority})")
            for loc, value, got in values if repr(got) != majority]


def _finding(policy: CompiledPolicy, loc: tuple, value: Any, data: dict, view: View, extra: str = "") -> Finding:
    p = policy.policy
    field = p.parameters.get("field") if p.template is not None else None
    span = (view.span_at(loc + tuple(field.split("."))) if field else None) or view.span_at(loc) \
        or Span(policy.file, 1, 1, 1, 1)
    text = p.message.value if p.message is not None else p.summary.value
    message = PLACEHOLDER.sub(lambda m: _render(m.group(1), value, data), text) + extra
    meta = {"summary": p.summary.value, "file": policy.file, "docs": p.docs.value if p.docs else None,
            "tags": [t.value for t in p.tags]}  # for reporters that describe rules outside the registry
    return Finding(policy.code, message, span, severity_of(p) if p.severity else Severity.ERROR,
                   key=f"{policy.code}:{_dotted(loc)}", extra={"policy": meta})


def _render(ref: str, value: Any, data: dict) -> str:
    head, *rest = ref.split(".")
    got = _lookup(value if head == "self" else data, rest)
    return "?" if got is None else str(got)


def _lookup(value: Any, parts: list[str]) -> Any:
    for part in parts:
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def _dotted(loc: tuple) -> str:
    return ".".join(str(p) for p in loc)


def run_examples(policy: CompiledPolicy) -> list[str]:
    """Failures of the policy's own examples (``netlint policy test``), each ``file:line:col: message``
    pointing at the example. A template evaluates like in a run; ``match-across`` has no examples."""
    ex = policy.policy.examples
    if ex is None or policy.program is None:
        return []
    problems = []
    for kind, items, want in (("pass", ex.pass_, True), ("fail", ex.fail, False)):
        for i, item in enumerate(items):
            sample = plain(item)
            span = getattr(item, "span", None) or policy.policy.id.span
            where = f"{span.file}:{span.line}:{span.col}"
            try:
                result = policy.program.evaluate({"self": sample, "workspace": {}})
            except CelError as exc:
                problems.append(f"{where}: {policy.code} {kind} example {i + 1}: CEL failed: {exc.message}")
                continue
            if not isinstance(result, bool):
                problems.append(f"{where}: {policy.code} {kind} example {i + 1}: gave {result!r}, not a boolean")
                continue
            got = result
            if got != want:
                verdict = "fails" if want else "passes"
                problems.append(f"{where}: {policy.code} {kind} example {i + 1} {verdict}: {sample!r}")
    return problems
