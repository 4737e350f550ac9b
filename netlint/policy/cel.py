"""The one adapter to the CEL engine (``common-expression-language``, Rust ``cel-interpreter``).

research/linter-anchors.md §3 measured the candidates on this machine and recommends this one:
compiled programs evaluate in microseconds and the language has no loops, no I/O and no
side effects. netlint adds one more guard: a call to a function outside CEL's standard library is
rejected at load time (the engine would only fail at run time, on the first node evaluated).
"""

from __future__ import annotations

import re
from typing import Any

# CEL standard functions and macros netlint allows (cel-spec "List of Standard Definitions").
ALLOWED_CALLS = frozenset({
    "size", "has", "all", "exists", "exists_one", "map", "filter", "contains", "startsWith",
    "endsWith", "matches", "int", "uint", "double", "string", "bool", "bytes", "type", "dyn",
    "duration", "timestamp", "max", "min", "lowerAscii", "upperAscii", "trim", "split", "join",
    "replace", "indexOf", "lastIndexOf", "substring",
})
_CALL = re.compile(r"(?<![\w.'\"])\.?([A-Za-z_]\w*)\s*\(")
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


class CelError(Exception):
    """A CEL expression that does not compile or cannot be allowed; ``column`` is 1-based or 0."""

    def __init__(self, message: str, column: int = 0):
        super().__init__(message)
        self.message, self.column = message, column


class Program:
    __slots__ = ("source", "_program", "uses_workspace")

    def __init__(self, source: str, program: Any):
        self.source = source
        self._program = program
        self.uses_workspace = "workspace" in source

    def evaluate(self, variables: dict[str, Any]) -> Any:
        try:
            return self._program.execute(variables)
        except Exception as exc:  # the engine raises KeyError/ValueError/RuntimeError alike
            raise CelError(f"{type(exc).__name__}: {exc}") from None


def compile_expression(source: str) -> Program:
    import cel

    blanked = _STRING.sub(lambda m: " " * len(m.group(0)), source)
    for m in _CALL.finditer(blanked):
        if m.group(1) not in ALLOWED_CALLS:
            raise CelError(f"function '{m.group(1)}' is not part of CEL's standard library; policies "
                           "cannot call anything else (no file, network or process access)",
                           m.start(1) + 1)
    try:
        return Program(source, cel.compile(source))
    except Exception as exc:
        text = str(exc)
        col = re.search(r"<input>:\d+:(\d+)", text)
        first = text.splitlines()[0] if text else type(exc).__name__
        raise CelError(first, int(col.group(1)) if col else 0) from None
