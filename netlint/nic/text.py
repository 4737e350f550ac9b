"""Located tokens of a text dump (``mlxconfig query``, ``mlnx_qos``, sysfs listings): line by line,
each token with the Span of exactly its characters."""

from __future__ import annotations

import re
from typing import Iterator

from netlint.located import Span


class Lines:
    """The lines of one file with their offsets, so a token found by a regex gets its Span."""

    def __init__(self, file: str, text: str):
        self.file = file
        self.lines = text.splitlines()
        self.starts: list[int] = []
        pos = 0
        for line in text.splitlines(keepends=True):
            self.starts.append(pos)
            pos += len(line)

    def __iter__(self) -> Iterator[tuple[int, str]]:
        """(0-based line index, line) pairs."""
        return iter(enumerate(self.lines))

    def span(self, i: int, start: int, end: int) -> Span:
        """Characters ``[start, end)`` of line ``i`` (0-based)."""
        base = self.starts[i] if i < len(self.starts) else 0
        return Span(self.file, i + 1, start + 1, i + 1, end + 1, base + start, base + end)

    def line_span(self, i: int) -> Span:
        line = self.lines[i]
        lead = len(line) - len(line.lstrip())
        return self.span(i, lead, len(line.rstrip()))

    def first(self) -> Span:
        for i, line in self:
            if line.strip():
                return self.line_span(i)
        return Span(self.file, 1, 1, 1, 1, 0, 0)


def tokens(line: str, pattern: str = r"\S+") -> list[tuple[str, int, int]]:
    """(token, start, end) of each match of ``pattern`` in ``line``."""
    return [(m.group(0), m.start(), m.end()) for m in re.finditer(pattern, line)]


_NV = re.compile(r"^(?:[A-Za-z_][\w-]*)?\((-?\d+)\)$")


def nv_int(raw: str) -> int | None:
    """The number an NV-config value stands for: ``True(1)`` 1, ``ECN(0)`` 0, ``0xff`` 255, ``48`` 48,
    ``true`` 1; None for what is no number (``Array[0..7]``)."""
    text = raw.strip().strip('"\'')
    m = _NV.match(text)
    if m:
        return int(m.group(1))
    low = text.lower()
    if low in ("true", "false"):
        return int(low == "true")
    try:
        return int(text, 16) if low.startswith("0x") else int(text)
    except ValueError:
        return None
