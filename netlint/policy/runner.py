"""Run policies over the workspace view; findings look exactly like built-in ones."""

from __future__ import annotations

import re
from typing import Any

from netlint.findings import Finding, Related, Severity
from netlint.located import Span
from netlint.policy.cel import ITEM_VARIABLES, VARIABLES, CelError
from netlint.policy.files import CompiledPolicy, describe, severity_of
from netlint.policy.view import View
from netlint.validation import EXCERPT, excerpt

PLACEHOLDER = re.compile(r"\{((?:%s)(?:\.[A-Za-z_]\w*)*)\}" % "|".join((*VARIABLES, "params")))


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

    from netlint.policy.overrides import configured_policies, duplicated

    compiled, findings = configured_policies(ws.config, lambda path: display_path(path, ws.root))
    compiled, problems = duplicated(compiled)
    findings.extend(problems)
    if not compiled:
        return findings
    view = View()
    data = view.build(ws)
    limit = ws.config.settings.limits.policy_budget
    for policy in compiled:
        try:
            findings.extend(evaluate(policy, data, view, limit))
        except Exception as exc:  # a JSONPath filter or the engine failing unexpectedly: located, not a crash
            where = policy.policy.assert_ or policy.policy.template or policy.policy.id
            findings.append(Finding("NL032", f"{policy.code}: policy failed: {type(exc).__name__}: {exc}",
                                    where.span, key=f"{policy.code}:runtime"))
    return findings


def matches(policy: CompiledPolicy, data: dict, most: int | None = None) -> list[tuple[tuple, Any]]:
    """The nodes the policy's JSONPaths select, each once, in order. A null node is an optional part
    the files do not have (the view writes every absent optional field as null): it is skipped, like
    a missing one. To require it, select its parent and use ``required``. Past ``most`` nodes the
    selection stops (:class:`TooMany`): the policy could not be evaluated within its budget."""
    out: dict[tuple, Any] = {}
    for query, _ in policy.paths:
        for node in query.finditer(data):
            if node.value is not None:
                out.setdefault(tuple(_location(node)), node.value)
                if most is not None and len(out) > most:
                    raise TooMany(len(out))
    return list(out.items())


class TooMany(Exception):
    def __init__(self, count: int):
        super().__init__(count)
        self.count = count


def _location(node) -> list:
    loc = node.location
    return list(loc() if callable(loc) else loc)


def evaluate(policy: CompiledPolicy, data: dict, view: View, limit: int | None = None) -> list[Finding]:
    """The policy's findings on ``data``; NL035 (and the findings made so far) when it spends more
    than ``limit`` cost units (netlint/policy/cost.py), checked before running (nodes × expression
    size) and on every node and macro iteration while it runs."""
    from netlint.policy.cost import Budget, BudgetSpent

    budget = Budget(limit if limit is not None else _default_limit())
    program = policy.program
    run, size = None, 1
    if program is not None:
        try:
            shared = {"workspace": data} if program.uses_workspace else {}
            run = program.bind({**shared, "params": policy.params} if "params" in program.uses else shared, budget)
        except BudgetSpent:
            return [_spent(policy, "stopped evaluating its workspace-wide part (once for all nodes)", budget)]
        size = run.fixed
    try:
        nodes = matches(policy, data, (budget.limit - budget.spent) // size)
    except TooMany as exc:
        return [_spent(policy, f"not run: it selects more than {exc.count - 1:,} nodes at {size:,} cost "
                       f"units each", budget)]
    if program is None:  # match-across
        try:
            return _match_across(policy, nodes, data, view, budget)
        except BudgetSpent:
            return [_spent(policy, f"stopped comparing the {len(nodes):,} selected values", budget)]
    p = policy.policy
    out = []
    items = [name for name in ITEM_VARIABLES.values() if name in program.uses]
    bound: dict[str, tuple | None] = {}
    for done, (loc, value) in enumerate(nodes):
        try:
            for name in items:  # the node's switch/env/job, pruned and weighed once for all its nodes
                key, item = _item(loc, data, name)
                if name not in bound or bound[name] != key:
                    run.set(name, item)
                    bound[name] = key
            ok = run({"self": value})
        except BudgetSpent:
            before = f" (the findings on the {done:,} before are reported)" if done else ""
            out.append(_spent(policy, f"stopped on node {done + 1:,} of {len(nodes):,}{before}", budget, loc, view))
            break
        except CelError as exc:
            where = p.assert_ or p.template
            node = view.span_at(loc)
            out.append(Finding("NL032", f"{policy.code}: CEL failed on {_shown(loc)}: {exc.message} "
                               "(guard optional fields with has())", where.span,
                               related=(Related(node, "the node it failed on"),) if node else (),
                               key=f"{policy.code}:runtime:{_dotted(loc)}"))
            continue
        if not isinstance(ok, bool):
            node = view.span_at(loc)
            where = p.assert_ or p.template
            out.append(Finding("NL034", f"{policy.code}: the expression gave {type(ok).__name__} {excerpt(ok)} on "
                               f"{_shown(loc)}, not true or false", where.span,
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


def _match_across(policy: CompiledPolicy, nodes, data: dict, view: View, budget) -> list[Finding]:
    """Every selected node whose field differs from the most common value, with a node holding that
    value as the related location; when no value is most common (a tie), every node is reported.

    Memory stays bounded whatever the values: each is compared by a 16-byte digest of its JSON text
    (charged to the budget, 1 + length/64 units), and a message quotes a short excerpt of a value and
    at most :data:`TIE_SHOWN` of the values that tie — never every value on every finding."""
    field = policy.params["field"]
    parts = tuple(field.split("."))
    values, shown = [], {}
    for loc, value in nodes:
        got = _lookup(value, list(parts))
        if got is not None:
            key = _digest(got, budget)
            shown.setdefault(key, excerpt(got))
            values.append((loc, value, key))
    majority, odd = _disagreeing([key for _, _, key in values])
    if not odd:
        return []
    if majority is None:
        keys = sorted(shown, key=shown.get)
        seen = ", ".join(shown[k] for k in keys[:TIE_SHOWN])
        seen += f" and {len(keys) - TIE_SHOWN:,} more" if len(keys) > TIE_SHOWN else ""
        return [_finding(policy, loc, value, data, view, extra=f" ({field} is {shown[key]}; the selected "
                         f"nodes disagree with no majority: {seen})") for loc, value, key in values]
    ref = next(loc for i, (loc, _, _) in enumerate(values) if i not in odd)
    where = view.span_at(ref + parts)
    related = (Related(where, f"{field} is {shown[majority]} here"),) if where else ()
    return [_finding(policy, loc, value, data, view, extra=f" ({field} is {shown[key]}, most have "
                     f"{shown[majority]})", related=related) for i, (loc, value, key) in enumerate(values) if i in odd]


TIE_SHOWN = 5  # values a match-across message names when the selected nodes tie


def _digest(value: Any, budget=None) -> bytes:
    """A value's identity for match-across: equal JSON text (keys sorted), equal digest; 9000 and
    9000.0 differ, as their text does."""
    import hashlib
    import json

    text = json.dumps(value, sort_keys=True, default=repr, ensure_ascii=False)
    if budget is not None:
        budget.charge(1 + len(text) // 64)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _disagreeing(values: list) -> tuple[Any, set[int]]:
    """The most common value (None on a tie for most common) and the indexes of the values that
    differ from it (all of them on a tie; none when all agree)."""
    counts: dict[Any, int] = {}
    for got in values:
        counts[got] = counts.get(got, 0) + 1
    if len(counts) <= 1:
        return None, set()
    top = max(counts.values())
    leaders = [k for k, n in counts.items() if n == top]
    if len(leaders) > 1:
        return None, set(range(len(values)))
    return leaders[0], {i for i, got in enumerate(values) if got != leaders[0]}


def _spent(policy: CompiledPolicy, what: str, budget, loc: tuple | None = None, view: View | None = None) -> Finding:
    """NL035 at the policy's check: its budget is spent (and how to write it cheaper)."""
    from netlint.limits import setting

    p = policy.policy
    where = p.assert_ or p.template or p.id
    node = view.span_at(loc) if view is not None and loc is not None else None
    return Finding("NL035", f"{policy.code}: {what}; that is more than {setting('policy_budget')} "
                   f"({budget.limit:,} cost units){_advice(policy)}", where.span,
                   related=(Related(node, "the node it stopped on"),) if node else (),
                   key=f"{policy.code}:budget")


def _advice(policy: CompiledPolicy) -> str:
    """How to write a policy that spent its budget so that it costs less."""
    program = policy.program
    if program is None:
        return "; select fewer nodes, or raise the budget"
    if program.plan.per_node_workspace:
        return ("; `workspace` is walked again for every selected node: to compare nodes with each other "
                "use `template: match-across`, or select once (`given: $.inventory`) and walk "
                "`workspace` inside")
    if program.plan.nesting > 1:
        return "; macros nested in macros cost size^depth: select the inner level with `given` instead"
    return "; select fewer nodes, or raise the budget"


def _default_limit() -> int:
    from netlint.limits import DEFAULT

    return DEFAULT.policy_budget


def _finding(policy: CompiledPolicy, loc: tuple, value: Any, data: dict, view: View, extra: str = "",
             related: tuple = ()) -> Finding:
    p = policy.policy
    field = policy.params.get("field") if p.template is not None else None
    span = (view.span_at(loc + tuple(field.split("."))) if field else None) or view.span_at(loc) \
        or Span(policy.file, 1, 1, 1, 1)
    text = p.message.value if p.message is not None else p.summary.value
    message = PLACEHOLDER.sub(lambda m: _render(m.group(1), value, data, loc, policy.params), text) + extra
    meta = {**describe(policy), "duplicates": policy.duplicates}  # reporters describe the rule from it
    return Finding(policy.code, message, span, severity_of(p) if p.severity else Severity.ERROR,
                   related=related, key=f"{policy.code}:{_dotted(loc)}", extra={"policy": meta})


def _render(ref: str, value: Any, data: dict, loc: tuple = (), params: dict | None = None) -> str:
    """A placeholder's value: its text, cut to a short excerpt with non-printable characters escaped
    (``{self}`` on a switch must not paste the switch into the message)."""
    head, *rest = ref.split(".")
    base = value if head == "self" else data if head == "workspace" else (params or {}) if head == "params" \
        else _item(loc, data, head)[1]
    got = _lookup(base, rest)
    if got is None:
        return "?"
    return excerpt(got) if not isinstance(got, str) or not got.isprintable() or len(got) > EXCERPT else got


def _lookup(value: Any, parts: list[str]) -> Any:
    for part in parts:
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def _shown(loc: tuple) -> str:
    """A node's location for a message: names from the files (port names, keys) cut short."""
    return ".".join(str(p) if len(str(p)) <= EXCERPT else excerpt(str(p)) for p in loc)


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
        shared["params"] = policy.params
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
                field = policy.params["field"].split(".")
                got = not _disagreeing([_digest(v) for s in sample if (v := _lookup(s, field)) is not None])[1]
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
