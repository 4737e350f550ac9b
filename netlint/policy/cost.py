"""What one policy may cost, and the rewrite of its expression that lets netlint count it.

The CEL engine (common-expression-language 0.10 over the Rust ``cel`` crate 0.14) has no cost limit:
cel-rust/cel-rust#56 ("Provide a mechanism for limiting the number of expressions") is open, and the
Python binding's ``Program.execute`` takes only a context. cel-go's ``CostLimit`` and Kubernetes'
per-expression budget are the model; netlint counts **cost units** against ``limits.policy-budget``:

* each node a policy evaluates costs the tokens of its expression (known before running: nodes × size);
* each iteration of a list macro costs the tokens of its body, and for ``map``/``filter`` also the
  elements built so far (the engine copies the list it builds on every iteration: 8,000 elements take
  64x the time of 1,000);
* compiling a regular expression costs :data:`REGEX_COMPILE`, matching one 1 + length/64;
* a ``match-across`` value costs 1 + length/64 of its JSON text.

To count inside one evaluation, the expression is rewritten before it is compiled, keeping its meaning:

* a macro's body ``B`` becomes ``[B][_nl_t(ID)]``: the same value, and a call back into netlint on every
  iteration that charges the budget and, once it is spent, stops the evaluation there;
* ``map``/``filter`` mark where they start: ``[RANGE][_nl_s(ID)].map(…)``;
* ``x.f`` becomes ``x['f']`` (cel-spec langdef "Field Selection": on a map, ``e.f`` is ``e['f']``): the
  engine deep-copies what a selection gives and not what an index gives, so ``self.ports`` inside a
  macro copied every port on every iteration; the last selection inside ``has()`` stays;
* ``matches`` calls ``_nl_rx_``: the Rust ``regex`` crate the engine uses, through pydantic-core
  (already a dependency), compiled once per pattern and policy — the engine compiles on every call;
* a macro that reads nothing but ``workspace`` (``workspace.switches.map(s, s.name)``) is hoisted:
  evaluated once per policy, its value bound to ``_nl_wN`` for every node.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from netlint.policy.cel import MACROS, blank_strings

REGEX_COMPILE = 10_000          # units charged for compiling one pattern (then cached for the policy)
REGEX_CACHE = 64                # patterns kept compiled per policy (dynamic patterns beyond are recompiled)
TICK, START, REGEX, HOISTED = "_nl_t", "_nl_s", "_nl_rx_", "_nl_w"
_TOKEN = re.compile(r"\w+|[^\w\s]")
_IDENT = re.compile(r"(?<![\w])[A-Za-z_]\w*")
_SELECT = re.compile(r"\.\s*([A-Za-z_]\w*)\b(?!\s*\()")
_CALL = re.compile(r"(?<![\w])([A-Za-z_]\w*)\s*\(")
# names that are no variable: literals and the type denotations CEL predefines
_NOT_VARIABLES = frozenset({"true", "false", "null", "int", "uint", "double", "string", "bytes", "bool",
                            "list", "map", "null_type", "type", "dyn"})


class BudgetSpent(Exception):
    """The policy's budget is spent; raised from inside an evaluation to stop it."""


class Budget:
    def __init__(self, limit: int):
        self.limit, self.spent, self.exceeded = limit, 0, False

    def charge(self, units: int) -> None:
        self.spent += units
        if self.spent > self.limit:
            self.exceeded = True
            raise BudgetSpent(f"cost budget of {self.limit:,} units spent")


def tokens(text: str) -> int:
    return max(1, len(_TOKEN.findall(blank_strings(text))))


@dataclass
class Plan:
    """An expression rewritten for metering: ``source`` per node, ``hoisted`` (name, source) once."""

    source: str
    tokens: int
    hoisted: list[tuple[str, str]] = field(default_factory=list)
    weights: dict[int, tuple[int, bool]] = field(default_factory=dict)  # macro id -> (body tokens, builds a list)
    per_node_workspace: bool = False   # a macro walks `workspace` again for every node (not hoistable)
    nesting: int = 0                   # macros nested in macros, at most


class Meter:
    """The functions a rewritten expression calls, charging one policy's budget."""

    def __init__(self, budget: Budget, weights: dict[int, tuple[int, bool]], regexes: dict):
        self.budget, self.weights, self.regexes = budget, weights, regexes
        self.built: dict[int, int] = {}

    def functions(self) -> dict:
        return {TICK: self.tick, START: self.start, REGEX: self.regex}

    def start(self, ident: int) -> int:
        self.built[ident] = 0
        return 0

    def tick(self, ident: int) -> int:
        weight, builds = self.weights.get(ident, (1, False))
        if builds:
            self.built[ident] = n = self.built.get(ident, 0) + 1
            weight += n
        self.budget.charge(weight)
        return 0

    def regex(self, text, pattern) -> bool:
        if not isinstance(text, str) or not isinstance(pattern, str):
            raise TypeError(f"matches() takes a string and a pattern, not {type(text).__name__} and "
                            f"{type(pattern).__name__}")
        compiled = self.regexes.get(pattern)
        if compiled is None:
            self.budget.charge(REGEX_COMPILE)
            compiled = compile_regex(pattern)
            if len(self.regexes) >= REGEX_CACHE:
                self.regexes.pop(next(iter(self.regexes)))
            self.regexes[pattern] = compiled
        self.budget.charge(1 + len(text) // 64)
        return compiled.isinstance_python(text)


def weight(value) -> int:
    """The values (scalars, lists, maps) in ``value``: what converting it for the engine costs."""
    n, stack = 0, [value]
    while stack:
        v = stack.pop()
        n += 1
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
    return n


def wrap(source: str, names: list[str]) -> str:
    """``source`` evaluated with each of ``names`` bound once, as a macro variable, from the
    resolver's ``_nl_<name>`` (a one-element list): a name the resolver gives is converted on every
    reference — ``self`` inside a macro over 5,000 ports, 5,000 times."""
    for name in reversed(names):
        source = f"_nl_{name}.map({name}, {source})[0]"
    return source


def compile_regex(pattern: str):
    """``pattern`` compiled by the Rust ``regex`` crate (pydantic-core's ``rust-regex`` engine: linear
    time, RE2 syntax, the crate the CEL engine's own ``matches`` uses); unanchored, like ``matches``."""
    from pydantic_core import SchemaError, SchemaValidator, core_schema

    try:
        return SchemaValidator(core_schema.str_schema(pattern=pattern, regex_engine="rust-regex"))
    except SchemaError as exc:
        lines = [ln.strip() for ln in str(exc).splitlines()]
        why = next((ln for ln in lines if ln.startswith("error:")), lines[-1] if lines else "")
        raise ValueError(f"{pattern[:60]!r} is not a valid regular expression: {why}") from None


# --- the rewrite --------------------------------------------------------------------------------

class _Text:
    """Bracket structure of one expression (string literals blanked)."""

    def __init__(self, source: str):
        self.source = blank_strings(source, strings=False)  # a comment would swallow what follows it
        self.blanked = blank_strings(source)
        self.close: dict[int, int] = {}
        self.open: dict[int, int] = {}
        stack = []
        for i, ch in enumerate(self.blanked):
            if ch in "([{":
                stack.append(i)
            elif ch in ")]}" and stack:
                o = stack.pop()
                self.close[o], self.open[i] = i, o

    def back(self, i: int) -> int:
        """The index of the last non-blank character at or before ``i`` (-1 when none)."""
        while i >= 0 and self.blanked[i].isspace():
            i -= 1
        return i

    def fwd(self, i: int) -> int:
        while i < len(self.blanked) and self.blanked[i].isspace():
            i += 1
        return i

    def args(self, open_: int) -> list[tuple[int, int]]:
        """The argument spans (trimmed) of the call whose ``(`` is at ``open_``."""
        out, depth, start = [], 0, open_ + 1
        for i in range(open_ + 1, self.close[open_]):
            ch = self.blanked[i]
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
            elif ch == "," and depth == 0:
                out.append((start, i))
                start = i + 1
        out.append((start, self.close[open_]))
        return [(self._trim(s, e)) for s, e in out]

    def _trim(self, s: int, e: int) -> tuple[int, int]:
        """[s, e) without the blanks around it (in the source: a string literal is no blank)."""
        while s < e and self.source[s].isspace():
            s += 1
        while e > s and self.source[e - 1].isspace():
            e -= 1
        return s, e

    def receiver(self, dot: int) -> int:
        """Where the receiver of the method call whose ``.`` is at ``dot`` starts (a chain of
        identifiers, selections, indexes and calls, or one bracketed primary)."""
        j = self.back(dot - 1)
        while j >= 0:
            ch = self.blanked[j]
            if ch in ")]}" and j in self.open:
                o = self.open[j]
                k = self.back(o - 1)
                if k >= 0 and (_word(self.blanked[k]) or (ch == "]" and self.blanked[k] in ")]}")):
                    j = k  # a call f(…), an index a[…] or a message T{…}: the chain goes on
                    continue
                return o
            if not _word(ch):
                return j + 1
            s = j
            while s > 0 and _word(self.blanked[s - 1]):
                s -= 1
            k = self.back(s - 1)
            if k >= 0 and self.blanked[k] == "." and not self.blanked[s].isdigit():
                j = self.back(k - 1)
                continue
            return s
        return 0

    def macros(self) -> list[tuple[str, int, int, int, list[tuple[int, int]]]]:
        """Every list macro as (name, receiver start, receiver end, ``(`` index, argument spans),
        outermost first."""
        out = []
        for m in _CALL.finditer(self.blanked):
            dot = self.back(m.start() - 1)
            if m.group(1) in MACROS and dot >= 0 and self.blanked[dot] == "." and m.end() - 1 in self.close:
                out.append((m.group(1), self.receiver(dot), self.back(dot - 1) + 1, m.end() - 1,
                            self.args(m.end() - 1)))
        return out


def _word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _free(text: _Text, start: int, end: int, bound: set[str]) -> set[str]:
    """The variables the span [start, end) reads, leaving out field and function names and ``bound``."""
    out = set()
    for m in _IDENT.finditer(text.blanked, start, end):
        before, after = text.back(m.start() - 1), text.fwd(m.end())
        if before >= start and text.blanked[before] == ".":
            continue
        if after < len(text.blanked) and text.blanked[after] == "(":
            continue
        if m.group() not in _NOT_VARIABLES and m.group() not in bound:
            out.add(m.group())
    return out


def _hoistable(text: _Text) -> list[tuple[int, int]]:
    """The outermost macro calls that read ``workspace`` and no other variable: their value is the same
    for every node a policy selects."""
    macros = text.macros()
    found = []
    for _, start, _, open_, args in macros:
        end = text.close[open_] + 1
        bound = {text.blanked[s:e] for _, _, _, o, a in macros if start <= o < end for s, e in a[:1]}
        if _free(text, start, end, bound) == {"workspace"}:
            found.append((start, end))
    return sorted((s, e) for s, e in found if not any(o != (s, e) and o[0] <= s and e <= o[1] for o in found))


class _Ids:
    def __init__(self):
        self.next, self.weights = 0, {}

    def new(self, weight: int, builds: bool) -> int:
        self.next += 1
        self.weights[self.next] = (weight, builds)
        return self.next


def _rewrite(source: str, ids: _Ids) -> str:
    text = _Text(source)
    source, b = text.source, text.blanked
    edits: list[tuple[int, int, int, str]] = []  # (position, order, end, text); order: 0 close, 1 open, 2 replace
    keep = set()  # the selection a has() tests
    for m in _CALL.finditer(b):
        if m.group(1) == "has" and m.end() - 1 in text.close:
            last, depth = None, 0
            for i in range(m.end(), text.close[m.end() - 1]):
                depth += b[i] in "([{"
                depth -= b[i] in ")]}"
                if b[i] == "." and depth == 0:
                    last = i
            keep.add(last)
        elif m.group(1) == "matches" and b[max(0, text.back(m.start() - 1))] == ".":  # no matches(s, p)
            edits.append((m.start(1), 2, m.end(1), REGEX))
    for m in _SELECT.finditer(b):
        before = text.back(m.start() - 1)
        if m.start() in keep or before < 0 or not (_word(b[before]) or b[before] in ")]}"):
            continue
        s = before
        while s > 0 and _word(b[s - 1]):
            s -= 1
        if _word(b[before]) and b[s].isdigit():
            continue  # 1.5: a number
        edits.append((m.start(), 2, m.end(), f"['{m.group(1)}']"))
    for name, start, until, _, args in text.macros():
        if len(args) < 2:
            continue
        s, e = args[1]
        ident = ids.new(tokens(source[s:e]), name in ("map", "filter"))
        edits += [(s, 1, -e, "["), (e, 0, -s, f"][{TICK}({ident})]")]
        if name in ("map", "filter"):
            edits += [(start, 1, -until, "["), (until, 0, -start, f"][{START}({ident})]")]
    out, cursor = [], 0
    for pos, order, end, new in sorted(edits, key=lambda x: (x[0], x[1], x[2])):
        out.append(source[cursor:pos])
        out.append(new)
        cursor = end if order == 2 else pos
    out.append(source[cursor:])
    return "".join(out)


def plan(source: str, hoist: bool = True) -> Plan:
    """``source`` rewritten for metering (see the module docstring); ``hoist`` moves workspace-only
    macros out into ``Plan.hoisted``."""
    ids = _Ids()
    text = _Text(source)
    source = text.source
    spans = _hoistable(text) if hoist else []
    hoisted, main, cursor = [], [], 0
    for i, (s, e) in enumerate(spans):
        name = f"{HOISTED}{i}"
        hoisted.append((name, _rewrite(source[s:e], ids)))
        main += [source[cursor:s], name]
        cursor = e
    main.append(source[cursor:])
    body = "".join(main)
    rest = _Text(body)
    # a macro whose range comes from `workspace` binds (and the engine copies) its elements anew on
    # every node; a lookup such as `workspace.inventory.fabric.mtu` inside a macro copies nothing
    walks = any("workspace" in _free(rest, start, until, set()) for _, start, until, _, _ in rest.macros())
    calls = [(o, text.close[o]) for _, _, _, o, _ in text.macros()]
    depth = max((sum(o < p < c for o, c in calls) + 1 for p, _ in calls), default=0)
    return Plan(_rewrite(body, ids), tokens(body), hoisted, ids.weights, walks, depth)
