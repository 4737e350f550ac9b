"""Run policies over the workspace view; findings look exactly like built-in ones."""

from __future__ import annotations

import re
from typing import Any

from netlint.findings import Finding, Related, Severity
from netlint.located import Span
from netlint.policy.cel import ITEM_VARIABLES, VARIABLES, CelError
from netlint.policy.files import CompiledPolicy, load, resolve, severity_of, unique
from netlint.policy.view import View

PLACEHOLDER = re.compile(r"\{((?:%s)(?:\.[A-Za-z_]\w*)*)\}" % "|".join(VARIABLES))


def run_policies(ws) -> list[Finding]:
    """Every configured policy's findings, and its problems as located NL03x findings. A netlint bug
    on the way is NL000 (exit 2, traceback on stderr) like a failing rule, never a crash of the run."""
    try:
        return _run_policies(ws)
    except Exception as exc:
        import sys
        import traceback

        sys.stderr.write(f"netlint: internal error in policies:\n{traceback.format_exc(limit=-3)}")
        where = Span(ws.config.file.name if ws.config.file else ".", 1, 1, 1, 1)
        return [Finding("NL000", f"internal error running policies: {type(exc).__name__}: {exc}", where,
                        key="internal:policies")]


def _run_policies(ws) -> list[Finding]:
    from netlint.discovery import display_path

    files, findings = resolve(ws.config.settings.policies, ws.config.root, ws.config.file)
    compiled: list[CompiledPolicy] = []
    for path in dict.fromkeys(p.resolve() for p in files):  # a file named twice loads once
        got, problems = load(path, display_path(path, ws.root))
        compiled.extend(got)
        findings.extend(problems)
    compiled, problems = unique(compiled)
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
    """The nodes the policy's JSONPaths select, each once, in order. A null node is an optional part
    the files do not have (the view writes every absent optional field as null): it is skipped, like
    a missing one. To require it, select its parent and use ``required``."""
    out: dict[tuple, Any] = {}
    for query, _ in policy.paths:
        for node in query.finditer(data):
            if node.value is not None:
                out.setdefault(tuple(_location(node)), node.value)
    return list(out.items())


def _location(node) -> list:
    loc = node.location
    return list(loc() if callable(loc) else loc)


def evaluate(policy: CompiledPolicy, data: dict, view: View) -> list[Finding]:
    nodes = matches(policy, data)
    p = policy.policy
    if policy.program is None:  # match-across
        return _match_across(policy, nodes, data, view)
    out = []
    program = policy.program
    run = program.bind({"workspace": data} if program.uses_workspace else {})
    items = [name for name in ITEM_VARIABLES.values() if name in program.uses]
    bound: dict[str, tuple | None] = {}
    for loc, value in nodes:
        try:
            for name in items:  # the node's switch/env/job, converted once for all its nodes
                key, item = _item(loc, data, name)
                if name not in bound or bound[name] != key:
                    run.set(name, item)
                    bound[name] = key
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


def _item(loc: tuple, data: dict, name: str) -> tuple[tuple | None, Any]:
    """The collection item bound as ``name`` for the node at ``loc``: the switch a port is in, the
    env a variable is in, the job an argument is in — null for a node outside that collection."""
    if len(loc) >= 2 and ITEM_VARIABLES.get(loc[0]) == name and isinstance(loc[1], int):
        return tuple(loc[:2]), data[loc[0]][loc[1]]
    return None, None


def _match_across(policy: CompiledPolicy, nodes, data: dict, view: View) -> list[Finding]:
    """Every selected node whose field differs from the most common value, with a node holding that
    value as the related location; when no value is most common (a tie), every node is reported."""
    field = policy.policy.parameters["field"]
    parts = tuple(field.split("."))
    values = [(loc, value, got) for loc, value in nodes if (got := _lookup(value, list(parts))) is not None]
    majority, odd = _disagreeing([got for _, _, got in values])
    if not odd:
        return []
    if majority is None:
        seen = ", ".join(sorted({repr(got) for _, _, got in values}))
        return [_finding(policy, loc, value, data, view, extra=f" ({field} is {got!r}; the selected nodes "
                         f"disagree with no majority: {seen})") for loc, value, got in values]
    ref = next(loc for i, (loc, _, _) in enumerate(values) if i not in odd)
    where = view.span_at(ref + parts)
    related = (Related(where, f"{field} is {majority} here"),) if where else ()
    return [_finding(policy, loc, value, data, view, extra=f" ({field} is {got!r}, most have {majority})",
                     related=related) for i, (loc, value, got) in enumerate(values) if i in odd]


def _disagreeing(values: list) -> tuple[str | None, set[int]]:
    """The most common value (its repr; None on a tie for most common) and the indexes of the values
    that differ from it (all of them on a tie; none when all agree)."""
    counts: dict[str, int] = {}
    for got in values:
        counts[repr(got)] = counts.get(repr(got), 0) + 1
    if len(counts) <= 1:
        return None, set()
    top = max(counts.values())
    leaders = [k for k, n in counts.items() if n == top]
    if len(leaders) > 1:
        return None, set(range(len(values)))
    return leaders[0], {i for i, got in enumerate(values) if repr(got) != leaders[0]}


def _finding(policy: CompiledPolicy, loc: tuple, value: Any, data: dict, view: View, extra: str = "",
             related: tuple = ()) -> Finding:
    p = policy.policy
    field = p.parameters.get("field") if p.template is not None else None
    span = (view.span_at(loc + tuple(field.split("."))) if field else None) or view.span_at(loc) \
        or Span(policy.file, 1, 1, 1, 1)
    text = p.message.value if p.message is not None else p.summary.value
    message = PLACEHOLDER.sub(lambda m: _render(m.group(1), value, data, loc), text) + extra
    meta = {"summary": p.summary.value, "file": policy.file, "docs": p.docs.value if p.docs else None,
            "tags": [t.value for t in p.tags]}  # for reporters that describe rules outside the registry
    return Finding(policy.code, message, span, severity_of(p) if p.severity else Severity.ERROR,
                   related=related, key=f"{policy.code}:{_dotted(loc)}", extra={"policy": meta})


def _render(ref: str, value: Any, data: dict, loc: tuple = ()) -> str:
    head, *rest = ref.split(".")
    base = value if head == "self" else data if head == "workspace" else _item(loc, data, head)[1]
    got = _lookup(base, rest)
    return "?" if got is None else str(got)


def _lookup(value: Any, parts: list[str]) -> Any:
    for part in parts:
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def _dotted(loc: tuple) -> str:
    return ".".join(str(p) for p in loc)


def run_examples(policy: CompiledPolicy) -> tuple[list[str], list[str]]:
    """Problems of the shared example bindings (``examples.switch`` …), and the examples that do not
    hold (``netlint policy test``), each ``file:line:col: message`` pointing at the example. An example is a value of ``self`` in the shape of the workspace view (map
    keys become strings, as in a run), evaluated against ``examples.workspace`` and the item bindings
    ``examples.switch`` (``nccl_env``, ``job``, ``nic``), empty unless given; for ``match-across``
    an example is the list of selected values, which fails when they disagree."""
    ex = policy.policy.examples
    if ex is None:
        return [], []
    run = None
    if policy.program is not None:
        shared = {name: View().convert(getattr(ex, name), ()) for name in VARIABLES[1:]}
        run = policy.program.bind({k: v for k, v in shared.items() if k in policy.program.uses})
    from netlint.policy.shape import check_value, item_schema, root_schema

    problems: list[str] = []   # one per example that does not hold
    setup: list[str] = []      # problems of the shared example bindings
    for name in VARIABLES[1:]:
        given = getattr(ex, name)
        shape = root_schema() if name == "workspace" else \
            item_schema(next(c for c, v in ITEM_VARIABLES.items() if v == name))
        wrong = check_value(View().convert(given, ()), shape) if given else None
        if wrong:
            span = policy.policy.id.span
            setup.append(f"{span.file}:{span.line}:{span.col}: {policy.code} examples.{name}: {wrong}")
    for kind, items, want in (("pass", ex.pass_, True), ("fail", ex.fail, False)):
        for i, item in enumerate(items):
            sample = View().convert(item, ())
            span = getattr(item, "span", None) or policy.policy.id.span
            where = f"{span.file}:{span.line}:{span.col}: {policy.code} {kind} example {i + 1}"
            nodes = sample if run is None and isinstance(sample, list) else [sample]  # match-across: a list
            wrong = next(filter(None, (check_value(n, policy.selected) for n in nodes)), None)
            if wrong:
                problems.append(f"{where}: {wrong}")
                continue
            if sample is None:  # a null node is skipped in a run: it passes
                got = True
            elif run is None:  # match-across
                if not isinstance(sample, list):
                    problems.append(f"{where}: a match-across example is a list of selected values")
                    continue
                field = policy.policy.parameters["field"].split(".")
                got = not _disagreeing([v for s in sample if (v := _lookup(s, field)) is not None])[1]
            else:
                try:
                    got = run({"self": sample})
                except CelError as exc:
                    problems.append(f"{where}: CEL failed: {exc.message}")
                    continue
                if not isinstance(got, bool):
                    problems.append(f"{where}: gave {got!r}, not a boolean")
                    continue
            if got != want:
                problems.append(f"{where} {'fails' if want else 'passes'}: {sample!r}")
    return setup, problems
