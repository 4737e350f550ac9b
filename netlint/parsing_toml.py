"""TOML within netlint's limits: ``tomllib`` with its nesting bounded, integers past 64 bits refused
as TOML says, and errors as located :class:`netlint.located.ParseError`."""

from __future__ import annotations

import re
from typing import Any

from netlint.located import ParseError, Span

_TOML_INT = re.compile(r"(?<![\w.])[+-]?[0-9][0-9_]{17,}(?![\w.])")
_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")
INT64 = 2 ** 63


def parse_toml(file: str, text: str) -> dict:
    """``tomllib.loads`` within netlint's limits; raises :class:`ParseError`.

    TOML integers are 64-bit ("If an integer cannot be represented losslessly, an error must be
    thrown", toml.io v1.0.0 Integer): a longer one is NL005 at its digits. Nesting past
    limits.max-depth (tomllib recurses into inline arrays and tables) is NL003."""
    import tomllib

    from netlint import limits

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = _TOML_AT.search(str(exc))
        line, col = (int(m.group(1)), int(m.group(2))) if m else (1, 1)
        raise ParseError(_TOML_AT.sub("", str(exc)).strip(), Span(file, line, col, line, col + 1)) from None
    except RecursionError:
        data = None
    except ValueError:  # Python's int-string limit (4,300 digits)
        raise _toml_int_error(file, text) from None
    bound = limits.current().max_depth
    if data is None or _depth_over(data, bound):
        raise ParseError(f"TOML not read: nested deeper than {bound} levels ({limits.setting('max_depth')})",
                         _nesting_span(file, text, bound), bound=True)
    if _int_over(data):
        raise _toml_int_error(file, text)
    return data


def _toml_int_error(file: str, text: str) -> ParseError:
    for m in _TOML_INT.finditer(text):
        digits = m.group(0).replace("_", "").lstrip("+-")
        if len(digits) > 19 or not -INT64 <= int(m.group(0).replace("_", "")) < INT64:
            span = _offset_span(file, text, m.start(), m.end())
            shown = digits if len(digits) <= 24 else f"{digits[:12]}…{digits[-6:]} ({len(digits):,} digits)"
            return ParseError(f"integer {shown} is out of range: TOML integers are 64-bit and tomllib readers "
                              f"fail on it; the file was not read", span, bound=True, code="NL005")
    return ParseError("an integer is out of range: TOML integers are 64-bit; the file was not read",
                      Span(file, 1, 1, 1, 1, 0, 0), bound=True, code="NL005")


def _offset_span(file: str, text: str, start: int, end: int) -> Span:
    line = text.count("\n", 0, start) + 1
    col = start - (text.rfind("\n", 0, start) + 1) + 1
    return Span(file, line, col, line, col + (end - start), start, end)


def _depth_over(data: Any, bound: int) -> bool:
    todo = [(data, 1)]
    while todo:
        node, depth = todo.pop()
        if depth > bound:
            return True
        children = node.values() if isinstance(node, dict) else node
        todo.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


def _int_over(data: Any) -> bool:
    todo = [data]
    while todo:
        node = todo.pop()
        for c in (node.values() if isinstance(node, dict) else node):
            if isinstance(c, (dict, list)):
                todo.append(c)
            elif type(c) is int and not -INT64 <= c < INT64:
                return True
    return False


def _nesting_span(file: str, text: str, bound: int) -> Span:
    """Where brackets first nest past ``bound`` (strings skipped roughly), else the file's start."""
    depth, quote = 0, ""
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
            if depth > bound:
                return _offset_span(file, text, i, i + 1)
        elif ch in "]}":
            depth -= 1
    return Span(file, 1, 1, 1, 1, 0, 0)
