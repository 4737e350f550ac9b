"""Plain text edits: replace ``[start, end)`` of a file's text, checked against what the finding saw."""

from __future__ import annotations

from netlint.findings import Edit
from netlint.fix.errors import FixError


def check_text_edit(edit: Edit, text: str) -> None:
    """Raise :class:`FixError` unless ``text`` holds exactly ``edit.expected`` at the edit's range."""
    s, e = edit.span.start, edit.span.end
    if s < 0 or e < s or e > len(text):
        raise FixError("the edit has no usable position in the file")
    if text[s:e] != edit.expected:
        if not edit.expected and e > s:
            raise FixError("the edit does not carry the text it replaces (Edit.expected is empty)")
        raise FixError(f"the file no longer holds {edit.expected!r} at line {edit.span.line}, "
                       f"column {edit.span.col} (found {text[s:e]!r})")


def overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether two edit ranges touch the same text. Two insertions at one point overlap too: their
    order would be arbitrary."""
    (s1, e1), (s2, e2) = a, b
    if s1 == e1 and s2 == e2:
        return s1 == s2
    if s1 == e1:
        return s2 < s1 < e2
    if s2 == e2:
        return s1 < s2 < e1
    return max(s1, s2) < min(e1, e2)


def apply_text_edits(text: str, edits: list[Edit]) -> str:
    """``text`` with non-overlapping ``edits`` applied (each already checked)."""
    out = text
    for edit in sorted(edits, key=lambda e: (e.span.start, e.span.end), reverse=True):
        out = out[: edit.span.start] + edit.replacement + out[edit.span.end:]
    return out


def newline_of(text: str) -> str:
    """The file's line ending: ``\\r\\n`` when every line break is CRLF, else ``\\n``."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf == text.count("\n") else "\n"
