"""The one adapter to the CEL engine (``common-expression-language``, Rust ``cel-interpreter``).

Chosen over cel-python and cel-expr-python (measured side by side when netlint was designed):
compiled programs evaluate in microseconds and the language has no loops, no I/O and no
side effects. netlint adds one more guard: a call to a function outside CEL's standard library is
rejected at load time (the engine would only fail at run time, on the first node evaluated).
"""

from __future__ import annotations

import re
from typing import Any

# The CEL standard functions and macros this engine implements and netlint allows (cel-spec "List of
# Standard Definitions"). Each one is pinned by tests/policy/test_cel_conformance.py: string extensions
# (lowerAscii, split, …) and max/min are *not* implemented by cel-interpreter 0.10, so they are refused at
# load time rather than failing on every node.
ALLOWED_CALLS = frozenset({
    "size", "has", "all", "exists", "exists_one", "map", "filter", "contains", "startsWith",
    "endsWith", "matches", "int", "uint", "double", "string", "bytes", "type", "dyn",
    "duration", "timestamp",
})
MACROS = frozenset({"all", "exists", "exists_one", "map", "filter"})
# cel-spec "Reserved words": no statements, no loops, no definitions in the language.
RESERVED = frozenset({"as", "break", "const", "continue", "else", "for", "function", "if", "import", "let",
                      "loop", "package", "namespace", "return", "var", "void", "while"})
MAX_LENGTH = 4096          # characters of one expression
MAX_MACRO_NESTING = 3      # list macros inside list macros: cost grows as n^depth
# Any identifier directly followed by "(" — a global call or a method call (after "."), once string
# literals are blanked out.
_CALL = re.compile(r"(?<!\w)([A-Za-z_]\w*)\s*\(")


def blank_strings(source: str, strings: bool = True) -> str:
    """``source`` with string and bytes literals and ``//`` comments replaced by spaces (newlines
    kept, so offsets and columns stay), following CEL's lexer: ``[bB]?[rR]?`` prefixes, ``'``, ``"``
    and their tripled forms, backslash escapes except in raw literals. ``strings=False`` blanks
    only the comments."""
    out = list(source)
    n, i = len(source), 0
    while i < n:
        c = source[i]
        if c == "/" and source.startswith("//", i):
            end = source.find("\n", i)
            end = n if end < 0 else end
        elif c in "'\"":
            start, raw = i, False
            if start > 0 and source[start - 1] in "rR":
                start, raw = start - 1, True
            if start > 0 and source[start - 1] in "bB":
                start -= 1
            if start > 0 and (source[start - 1].isalnum() or source[start - 1] == "_"):
                start, raw = i, False  # the letters end an identifier, not a prefix (not valid CEL)
            quote = source[i:i + 3] if source[i:i + 3] in ("'''", '"""') else c
            j = i + len(quote)
            while j < n and not source.startswith(quote, j):
                j += 2 if source[j] == "\\" and not raw else 1
            end = min(n, j + len(quote))
            i = start
            if not strings:
                i = end
                continue
        else:
            i += 1
            continue
        for k in range(i, end):
            if out[k] != "\n":
                out[k] = " "
        i = end
    return "".join(out)


class CelError(Exception):
    """A CEL expression that does not compile or cannot be allowed; ``column`` is 1-based or 0."""

    def __init__(self, message: str, column: int = 0):
        super().__init__(message)
        self.message, self.column = message, column


# The variables a policy expression may use: the selected node, the whole workspace view, and the
# collection item the node is in (the switch of a port, the env of a variable, the job of a flag).
ITEM_VARIABLES = {"switches": "switch", "nccl_envs": "nccl_env", "jobs": "job", "nics": "nic"}
VARIABLES = ("self", "workspace", *ITEM_VARIABLES.values())
# The policy's parameters (its `params`, with the config's overrides): the same for every node, like
# `workspace`, so one policy serves clusters that differ in a number.
PARAMS = "params"


def _uses(blanked: str, name: str) -> list[re.Match]:
    return list(re.finditer(rf"(?<![\w.]){name}(?!\w)", blanked))


def _fields(blanked: str, uses: list[re.Match]) -> frozenset | None:
    """The top-level fields the expression reads of a variable, or None when it uses the value whole
    (``size(self)``, ``self == …``, a method call on it)."""
    names = set()
    for m in uses:
        f = re.compile(r"\s*\.\s*([A-Za-z_]\w*)(\s*\()?").match(blanked, m.end())
        if f is None or f.group(2):
            return None
        names.add(f.group(1))
    return frozenset(names)


class Program:
    """A compiled expression. ``uses`` are the variables it names; ``prune`` drops the fields of a
    variable it never reads, since the engine converts every value it is given from Python (a port
    without its queue and PG maps converts 3x faster). ``evaluate`` runs the expression as written;
    ``bind`` runs it metered (netlint/policy/cost.py) against a policy's budget."""

    __slots__ = ("source", "_program", "uses", "_fields", "plan", "_metered", "_hoisted", "_plain", "regexes")

    def __init__(self, source: str, program: Any):
        import cel

        from netlint.policy.cost import plan, wrap

        self.source = source
        self._program = program
        blanked = blank_strings(source)
        found = {name: _uses(blanked, name) for name in (*VARIABLES, PARAMS)}
        self.uses = frozenset(name for name, m in found.items() if m)
        self._fields = {name: _fields(blanked, found[name]) for name in self.uses}
        self.plan = plan(source)
        self._metered = cel.compile(wrap(self.plan.source, self.per_node))
        self._hoisted = [(name, cel.compile(text)) for name, text in self.plan.hoisted]
        self._plain = None
        self.regexes: dict = {}  # patterns compiled for this policy (cost.Meter.regex)

    @property
    def uses_workspace(self) -> bool:
        return "workspace" in self.uses

    @property
    def per_node(self) -> list[str]:
        """The variables it reads that change from node to node, outermost first."""
        return [name for name in VARIABLES if name != "workspace" and name in self.uses]

    def unhoisted(self) -> Any:
        """The metered program without hoisted values, for when one of them fails to evaluate: per
        node, an error may be one a `||` absorbs."""
        if self._plain is None:
            import cel

            from netlint.policy.cost import plan, wrap

            self._plain = cel.compile(wrap(plan(self.source, hoist=False).source, self.per_node))
        return self._plain

    def prune(self, name: str, value: Any) -> Any:
        keep = self._fields.get(name)
        if keep is None or not isinstance(value, dict):
            return value
        return {k: v for k, v in value.items() if k in keep}

    def evaluate(self, variables: dict[str, Any]) -> Any:
        try:
            return self._program.execute({k: self.prune(k, v) for k, v in variables.items()})
        except Exception as exc:  # the engine raises KeyError/ValueError/RuntimeError alike
            raise CelError(f"{type(exc).__name__}: {exc}") from None

    def bind(self, shared: dict[str, Any], budget=None) -> "Bound":
        """An evaluator for many nodes that share large variables (``workspace``, the node's switch):
        they are converted to CEL once, not once per node (about 5x less per node on a 60 KB
        workspace); every evaluation is charged to ``budget`` (a fresh default one when None)."""
        return Bound(self, shared, budget)


class Bound:
    """Evaluates one program on node after node. ``workspace`` and the hoisted values are converted
    for the engine once; the per-node variables (``self``, ``switch`` …) reach it through a resolver
    and are bound once per evaluation by the wrapper :func:`~netlint.policy.cost.wrap` adds. (With
    ``add_variable`` per node the binding rebuilt its whole environment on every node — a
    5,000-port workspace converted again for each of 5,000 ports.)"""

    __slots__ = ("program", "budget", "_context", "_engine", "_current", "_weights", "walk")

    def __init__(self, program: Program, shared: dict[str, Any], budget=None):
        import cel

        from netlint.policy.cost import Budget, Meter

        self.program = program
        self.budget = budget if budget is not None else Budget(_default_budget())
        self._context = cel.Context()
        for name, function in Meter(self.budget, program.plan.weights, program.regexes).functions().items():
            self._context.add_function(name, function)
        self._current: dict[str, list] = {}  # "_nl_self" -> [value]: a resolver cannot answer null
        self._weights: dict[str, int] = {}
        self.walk = 0  # what walking `workspace` once costs, when the expression does it on every node
        self._context.set_variable_resolver(self._current.get)
        for name, value in shared.items():
            self.set(name, value)
        self._engine = program._metered
        if program._hoisted and not ("workspace" in shared and self._hoist()):
            self._engine = program.unhoisted()

    def _hoist(self) -> bool:
        """Evaluate the workspace-only macros once; False when one fails (then they run per node)."""
        from netlint.policy.cost import weight

        for name, engine in self.program._hoisted:
            try:
                value = engine.execute(self._context)
            except Exception:
                self._stop_if_spent()
                return False
            self._stop_if_spent()
            self.budget.charge(weight(value))
            self._context.add_variable(name, value)
        return True

    @property
    def fixed(self) -> int:
        """Cost units of every evaluation, before the node's own values: the expression's tokens,
        and a walk over ``workspace`` when it makes one per node."""
        return self.program.plan.tokens + self.walk

    def _stop_if_spent(self) -> None:
        if self.budget.exceeded:
            from netlint.policy.cost import BudgetSpent

            raise BudgetSpent(f"cost budget of {self.budget.limit:,} units spent")

    def set(self, name: str, value: Any) -> None:
        """Bind ``name`` (pruned to the fields the expression reads) until it is set again; converting
        it costs one unit per value in it, once for ``workspace``, on every evaluation otherwise."""
        from netlint.policy.cost import weight

        if name not in self.program.uses:
            return
        value = self.program.prune(name, value)
        if name == PARAMS:  # a policy's constants: bound once, converted once
            self.budget.charge(weight(value))
            self._context.add_variable(name, value)
            return
        if name != "workspace":
            self._current[f"_nl_{name}"] = [value]
            self._weights[name] = weight(value)
            return
        units = weight(value)
        self.budget.charge(units)
        if self.program.plan.per_node_workspace:
            self.walk = units  # the engine copies each element a macro binds: the walk copies it all
        try:
            self._context.add_variable(name, value)
        except Exception as exc:
            raise CelError(f"{type(exc).__name__}: {exc}") from None

    def __call__(self, variables: dict[str, Any]) -> Any:
        """The expression's value on one node; :class:`~netlint.policy.cost.BudgetSpent` when the
        policy's budget ran out on the way (whatever the engine made of the stop)."""
        for name, value in variables.items():
            self.set(name, value)
        self.budget.charge(self.fixed + sum(self._weights.values()))
        try:
            got = self._engine.execute(self._context)
        except Exception as exc:
            self._stop_if_spent()
            raise CelError(_plain_message(f"{type(exc).__name__}: {exc}")) from None
        self._stop_if_spent()  # a stop inside `x || …` may have been absorbed by the engine
        return got


def _default_budget() -> int:
    from netlint.limits import DEFAULT

    return DEFAULT.policy_budget


def _plain_message(message: str, limit: int = 300) -> str:
    """An engine error in the words of the expression as written (not of netlint's rewrite), each
    value it quotes cut to 60 characters — the engine quotes a missing key or an unparsable
    duration whole, and they come from the files under review — and the whole to ``limit``."""
    from netlint.policy.cost import REGEX

    message = message.replace(f"Function '{REGEX}' error: Python function call failed: ", "")
    message = message.replace(REGEX, "matches").split(". Check function arguments")[0]
    message = re.sub(r"(['\"])([^'\"\n]{60,})\1", lambda m: f"{m[1]}{m[2][:59]}…{m[1]}", message)
    message = "".join(c if c.isprintable() else repr(c)[1:-1] for c in message)
    return message if len(message) <= limit else message[: limit - 1] + "…"


_SILENT = []


def _silence_engine_log() -> None:
    """The engine logs every failing Python function ("Python function '_nl_t' failed") on the
    ``cel`` logger; netlint reports the failure itself, as a finding."""
    if not _SILENT:
        import logging

        log = logging.getLogger("cel")
        log.addHandler(logging.NullHandler())
        log.propagate = False
        _SILENT.append(log)


def check(source: str) -> None:
    """Refuse what CEL would allow but netlint does not: unknown functions (a typo, or an attempt to
    reach outside: ``open(...)``), very long expressions and deeply nested list macros."""
    if len(source) > MAX_LENGTH:
        raise CelError(f"expression is {len(source)} characters long; the limit is {MAX_LENGTH}", 1)
    blanked = blank_strings(source)
    for m in _CALL.finditer(blanked):
        if m.group(1) in RESERVED:
            raise CelError(f"'{m.group(1)}' is a reserved word: CEL is one expression, with no statements, "
                           "loops or function definitions", m.start(1) + 1)
        if m.group(1) not in ALLOWED_CALLS:
            raise CelError(f"function '{m.group(1)}' is not part of the CEL standard library netlint "
                           "supports; policies cannot call anything else (no file, network or process "
                           "access)", m.start(1) + 1)
    stack: list[bool] = []
    calls = {m.end() - 1: m.group(1) for m in _CALL.finditer(blanked)}
    for pos, ch in enumerate(blanked):
        if ch in "([{":
            stack.append(ch == "(" and calls.get(pos) in MACROS)
            if sum(stack) > MAX_MACRO_NESTING:
                raise CelError(f"list macros nested more than {MAX_MACRO_NESTING} deep (cost grows as "
                               "size^depth); select deeper with `given` instead", pos + 1)
        elif ch in ")]}" and stack:
            stack.pop()


def compile_expression(source: str) -> Program:
    import cel

    check(source)
    _silence_engine_log()
    try:
        program = cel.compile(source)
    except Exception as exc:
        text = str(exc)
        col = re.search(r"<input>:\d+:(\d+)", text)
        first = text.splitlines()[0] if text else type(exc).__name__
        raise CelError(first, int(col.group(1)) if col else 0) from None
    try:
        return Program(source, program)
    except Exception as exc:  # the metering rewrite (cost.py) of a valid expression: a netlint bug
        raise CelError(f"netlint cannot meter this expression ({type(exc).__name__}: "
                       f"{str(exc).splitlines()[0] if str(exc) else ''}); please report it") from None
