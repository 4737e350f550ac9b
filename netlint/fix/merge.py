"""Carry a round-trip editor's change back onto the original text, line by line.

ruamel.yaml's round trip keeps comments and order but not every byte: it may re-indent a sequence,
respace a flow list or drop a ``---``. Given the original ``o``, ruamel's unchanged dump ``r`` and its
changed dump ``m``, :func:`merge3` applies only the lines that differ between ``r`` and ``m`` to ``o``
— where the surrounding lines of ``r`` can be found in ``o`` — so every line the fix did not touch
keeps its original bytes. Lines are matched by their text without leading whitespace; the lines
carried over are re-indented by the offset between ``r`` and ``o`` at a nearby line of the same
indentation. Returns None when a change cannot be placed unambiguously (the caller then falls back
to ruamel's own output).
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _content_col(line: str) -> int:
    """The column of a line's content after its indentation and any ``- `` sequence dashes."""
    stripped = line.lstrip(" ")
    col = len(line) - len(stripped)
    while stripped.startswith("- ") or stripped == "-\n":
        rest = stripped[1:].lstrip(" ")
        col += len(stripped) - len(rest)
        stripped = rest
    return col


def _norm(line: str) -> str:
    """A line's text for matching: its tokens, whatever the spacing between them."""
    return " ".join(line.split())


def merge3(o: str, r: str, m: str) -> str | None:
    if r == m:
        return o
    O = o.splitlines(keepends=True)
    R = r.splitlines(keepends=True)
    M = m.splitlines(keepends=True)
    rmap: dict[int, int] = {}
    match = SequenceMatcher(None, [_norm(x) for x in R], [_norm(x) for x in O], autojunk=False)
    for tag, i1, i2, j1, j2 in match.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                rmap[i1 + k] = j1 + k
    out: list[str] = []
    pos = 0
    edits = SequenceMatcher(None, R, M, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in edits:
        if tag == "equal":
            continue
        if i2 > i1:
            idx = [rmap.get(i) for i in range(i1, i2)]
            if any(x is None for x in idx) or idx != list(range(idx[0], idx[0] + len(idx))):
                return None
            o1, o2 = idx[0], idx[-1] + 1
        else:
            before = rmap.get(i1 - 1) if i1 > 0 else -1
            after = rmap.get(i1) if i1 < len(R) else None
            if before is not None:
                o1 = o2 = before + 1
            elif after is not None:
                o1 = o2 = after
            else:
                return None
        if o1 < pos:
            return None
        out.extend(O[pos:o1])
        if out and not out[-1].endswith("\n"):
            out[-1] += "\n"
        new = _reindent(M[j1:j2], R, O, rmap, i1)
        if i2 - i1 == j2 - j1:  # lines changed one for one: keep each one's comment spacing
            new = [_comment_gap(O[o1 + k], line) if o1 + k < o2 else line for k, line in enumerate(new)]
        out.extend(new)
        pos = o2
    out.extend(O[pos:])
    merged = "".join(out)
    if o and not o.endswith("\n") and merged.endswith("\n"):
        merged = merged[:-1]  # the original had no newline at the end: keep it that way
    return merged


_EOL_COMMENT = re.compile(r"(\s+)(#[^\n]*)$")


def _comment_gap(old: str, new: str) -> str:
    """``new`` with the spacing before its end-of-line comment as in ``old`` (ruamel re-spaces it)."""
    m = _EOL_COMMENT.search(old.rstrip("\r\n"))
    body = new.rstrip("\r\n")
    if not m or not body.endswith(m.group(2)):
        return new
    code = body[: len(body) - len(m.group(2))].rstrip()
    return code + m.group(1) + m.group(2) + new[len(body):]


def _reindent(lines: list[str], R: list[str], O: list[str], rmap: dict[int, int], at: int) -> list[str]:
    """Shift ``lines`` (from ruamel's output) to the original's indentation around R line ``at``."""
    if not lines:
        return lines
    want = _content_col(lines[0])
    delta = _sibling_delta(range(at - 1, -1, -1), want, R, O, rmap)
    if delta is None:
        delta = _sibling_delta(range(at, len(R)), want, R, O, rmap)
    if not delta:
        return lines
    out = []
    for line in lines:
        if not line.strip():
            out.append(line)
        elif delta > 0:
            out.append(" " * delta + line)
        else:
            cut = min(-delta, _indent(line))
            out.append(line[cut:])
    return out


def _sibling_delta(order, want: int, R: list[str], O: list[str], rmap: dict[int, int]) -> int | None:
    """Indentation offset O - R at the nearest line indented like ``want`` before leaving its block."""
    for i in order:
        if not R[i].strip() or R[i].lstrip().startswith("#"):
            continue
        if _content_col(R[i]) < want:
            return None  # left the block: no sibling this way
        j = rmap.get(i)
        if j is not None and _content_col(R[i]) == want:
            return _content_col(O[j]) - _content_col(R[i])
    return None
