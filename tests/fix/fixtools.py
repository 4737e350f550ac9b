"""Synthetic fixes for testing the fixer before (and besides) the real rules: a test rule whose
findings come from callables the test installs (the ``fix_rules`` fixture; import it into the test
module). Not a conftest.py: the suite imports the top-level ``conftest`` by name."""

from __future__ import annotations

from typing import Any, Callable, Iterable

import pytest

from netlint.findings import Edit, Finding, Fix, Severity
from netlint.located import Span, locate, parse_json, parse_yaml, plain


def span_at(file: str, text: str, start: int, end: int) -> Span:
    line = text.count("\n", 0, start) + 1
    col = start - (text.rfind("\n", 0, start) + 1) + 1
    end_line = text.count("\n", 0, end) + 1
    end_col = end - (text.rfind("\n", 0, end) + 1) + 1
    return Span(file, line, col, end_line, end_col, start, end)


def replace_text(suffix: str, old: str, new: str, *, safe: bool = True, code: str = "ZZ901"):
    """A finding per occurrence of ``old`` in files ending with ``suffix``, fixed by ``new``."""
    def make(ws) -> Iterable[Finding]:
        for path, src in sorted(ws.sources.items()):
            if not path.endswith(suffix):
                continue
            text = src.text
            at = text.find(old)
            while at >= 0:
                span = span_at(path, text, at, at + len(old))
                yield Finding(code, f"{old!r} should be {new!r}", span, Severity.WARNING,
                              fix=Fix(f"replace {old!r} with {new!r}",
                                      (Edit(span, new, expected=old),), safe), key=f"{old}@{at}")
                at = text.find(old, at + len(old))
    return make


def set_value(suffix: str, path: tuple, value: Any, *, safe: bool = True, code: str = "ZZ902",
              expected_text: bool = False):
    """A finding when the document in files ending with ``suffix`` does not hold ``value`` at
    ``path``; fixed by a structural edit anchored at the deepest existing node."""
    def make(ws) -> Iterable[Finding]:
        for name, src in sorted(ws.sources.items()):
            if not name.endswith(suffix):
                continue
            text = src.text
            if name.endswith(".json"):
                roots = [parse_json(name, text).root]
            else:
                roots = [d.root for d in parse_yaml(name, text)]
            for root in roots:
                node, depth = root, 0
                for part in path:
                    child = locate(node, (part,))
                    if child is None:
                        break
                    node, depth = child, depth + 1
                if depth == len(path) and plain(node) == value:
                    continue
                span = node.span
                edit = Edit(span, "", expected=text[span.start:span.end] if expected_text else "",
                            doc_path=path, value=value)
                yield Finding(code, f"{'.'.join(map(str, path))} should be {value!r}", span,
                              Severity.WARNING, fix=Fix(f"set {path} to {value!r}", (edit,), safe),
                              key=".".join(map(str, path)))
    return make


def finding(file: str, text: str, start: int, end: int, replacement: str, *, expected: str | None = None,
            code: str = "ZZ901", safe: bool = True) -> Finding:
    span = span_at(file, text, start, end)
    edit = Edit(span, replacement, expected=text[start:end] if expected is None else expected)
    return Finding(code, "synthetic", span, Severity.WARNING, fix=Fix("synthetic", (edit,), safe))


Maker = Callable[[Any], Iterable[Finding]]


@pytest.fixture
def fix_rules():
    """Install synthetic rules for one test: ``fix_rules.append(maker)``; each maker(ws) yields
    findings. Removed from the rule registry afterwards."""
    from netlint.rules.base import REGISTRY, Rule

    makers: list = []

    class SyntheticFixes(Rule):
        """Test-only rule: findings and fixes come from the test.

        Source: tests/fix/helpers.py
        """

        code = "ZZ900"
        name = "synthetic-fixes"
        summary = "synthetic findings with fixes, for the fixer's tests"

        def check(self, ws):
            for make in makers:
                yield from make(ws)

    try:
        yield makers
    finally:
        REGISTRY.pop("ZZ900", None)
