"""Findings and the fixes they carry. Fixes are data: the fixer (not the rule) applies them."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from netlint.located import Span


class Severity(IntEnum):
    INFO = 1
    WARNING = 2
    ERROR = 3

    @classmethod
    def parse(cls, text: str) -> "Severity":
        return cls[text.strip().upper()]

    def __str__(self) -> str:
        return self.name.lower()


@dataclass(frozen=True)
class Edit:
    """Replace ``[span.start, span.end)`` of ``span.file`` with ``replacement``.

    ``expected`` is the text the finding saw at that range; the fixer refuses the edit when the file
    no longer holds it. A structural edit (``doc_path`` set) asks the fixer to set the value at that
    key path of a YAML/JSON document, creating keys as needed; it is how a fix adds a key that does
    not exist yet. ``value`` is then the Python value to write.
    """

    span: Span
    replacement: str
    expected: str = ""
    doc_path: tuple | None = None
    value: Any = None

    @property
    def file(self) -> str:
        return self.span.file


@dataclass(frozen=True)
class Fix:
    """A set of edits applied together. ``safe`` fixes keep behaviour the user intended;
    unsafe ones change the training run or the fabric (applied only with ``--unsafe-fixes``)."""

    description: str
    edits: tuple[Edit, ...]
    safe: bool = True


@dataclass(frozen=True)
class Related:
    span: Span
    message: str


@dataclass
class Finding:
    code: str
    message: str
    span: Span
    severity: Severity = Severity.ERROR
    related: tuple[Related, ...] = ()
    fix: Fix | None = None
    # Logical identity for baselines: a YAML/JSON path, a variable name, a port; never a line.
    key: str = ""
    suppressed: str | None = None  # the reason, when an inline suppression or baseline applies
    extra: dict = field(default_factory=dict)

    @property
    def file(self) -> str:
        return self.span.file

    def sort_key(self) -> tuple:
        return (self.span.file, self.span.line, self.span.col, self.code, self.message)


def replace_span(span: Span, replacement: str, text: str | None = None) -> Edit:
    """An edit replacing exactly the token at ``span``; ``text`` is the file text it was read from."""
    expected = text[span.start:span.end] if text is not None and span.start >= 0 else ""
    return Edit(span=span, replacement=replacement, expected=expected)
