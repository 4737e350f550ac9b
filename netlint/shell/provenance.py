"""Text handed to tree-sitter, with the provenance of every character.

A script file is one exact run; the string of a ``bash -c "…"`` or an ``sbatch <<EOF`` body is
built from evaluated :class:`~netlint.shell.model.Seg` pieces, so each character of the re-parsed
text still knows the file offset where it was written and the expansion that carried it. Unknown
pieces become placeholder identifiers that map back to their :class:`Unknown`.
"""

from __future__ import annotations

import bisect
import re

from netlint.located import Span
from netlint.shell.model import FileText, Seg, Unknown, _hull

PLACEHOLDER = "__netlint_unknown_{}__"


class Run:
    __slots__ = ("a", "b", "ft", "ostart", "oend", "exact", "site", "unknown")

    def __init__(self, a, b, ft, ostart, oend, exact, site, unknown):
        self.a, self.b = a, b
        self.ft, self.ostart, self.oend, self.exact = ft, ostart, oend, exact
        self.site, self.unknown = site, unknown


# `<<EOT`, `<<-'EOT'` alone on a line: a here-document no command reads
_BASE10 = re.compile(r"(?<=[\s(+\-*/%,?:!<>=&|^~])10#(?=[$0-9A-Za-z_{])")
_BARE_HEREDOC = re.compile(r"^[ \t]*<<(-?)[ \t]*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2[ \t]*$", re.M)


class ProvText:
    """``text`` plus runs mapping ``[a, b)`` of it back to file offsets."""

    def __init__(self, text: str, runs: list[Run], ft: FileText | None = None):
        self.text = text
        self.runs = runs
        self._starts = [r.a for r in runs]
        self.ft = ft  # set when the text is a whole file (exact identity mapping)

    @classmethod
    def of_file(cls, ft: FileText) -> "ProvText":
        n = len(ft.text)
        return cls(ft.text, [Run(0, n, ft, 0, n, True, None, None)], ft)

    @classmethod
    def of_segs(cls, segs: list[Seg]) -> "ProvText":
        parts, runs, pos = [], [], 0
        for i, s in enumerate(segs):
            text = PLACEHOLDER.format(i) if s.unknown is not None else s.text
            if not text:
                continue
            runs.append(Run(pos, pos + len(text), s.ft, s.ostart, s.oend,
                            s.exact and s.unknown is None, s.site, s.unknown))
            parts.append(text)
            pos += len(text)
        return cls("".join(parts), runs)

    def blanked(self, a: int, b: int) -> "ProvText":
        """The same text with ``[a, b)`` replaced by spaces (newlines kept): error recovery."""
        middle = "".join(c if c == "\n" else " " for c in self.text[a:b])
        return ProvText(self.text[:a] + middle + self.text[b:], self.runs, self.ft)

    def escaped_blank_hash(self) -> "ProvText":
        """tree-sitter-bash reads a word that starts with an escaped blank and then ``#`` (``\\ #``)
        as a comment; bash reads the word `` #``. Rewritten in place as `` \\#`` (same length, so
        offsets keep their provenance): the word ``#`` — a stray word either way, not a comment."""
        text = self.text
        if "\\ #" not in text and "\\\t#" not in text:
            return self
        chars = list(text)
        i = text.find("\\")
        while i >= 0:
            if i + 2 < len(text) and text[i + 1] in " \t" and text[i + 2] == "#" \
                    and (i == 0 or text[i - 1] in " \t\n"):
                chars[i], chars[i + 1] = text[i + 1], "\\"
            i = text.find("\\", i + 2)
        return ProvText("".join(chars), self.runs, self.ft)

    def base10_arithmetic(self) -> "ProvText":
        """tree-sitter-bash cannot read bash's base prefix in arithmetic (``$((SEED + 10#$index))``, MLPerf's
        run.sub) and loses the line. ``10#`` is blanked to spaces inside ``((…))`` (same length: offsets keep
        their provenance): the number in base 10 either way, but for a leading 0, which netlint does not
        rely on (bash(1) ARITHMETIC EVALUATION: "base#n")."""
        text = self.text
        if "10#" not in text:
            return self
        chars, changed = list(text), False
        for m in _BASE10.finditer(text):
            line_start = text.rfind("\n", 0, m.start()) + 1
            before = text[line_start:m.start()]
            if before.count("((") > before.count("))"):
                chars[m.start():m.start() + 3] = "   "
                changed = True
        return ProvText("".join(chars), self.runs, self.ft) if changed else self

    def bare_heredocs_blanked(self) -> "ProvText":
        """A here-document with no command (``<<EOT`` alone on a line, a block comment some scripts use)
        is a no-op to bash, but tree-sitter-bash cannot read it and loses the lines around it. Blanked
        to spaces, ``<<`` line through terminator (same length: offsets keep their provenance)."""
        text = self.text
        if "<<" not in text:
            return self
        out = self
        for m in _BARE_HEREDOC.finditer(text):
            before = text[:m.start()].rstrip()
            if before.endswith(("\\", "|", "&&", "||", "(", "$(")):
                continue  # the heredoc belongs to the command on the line before
            dash, word = m.group(1), m.group(3)
            end_re = re.compile(r"^" + ("\t*" if dash else "") + re.escape(word) + r"[ \t]*$", re.M)
            end = end_re.search(text, m.end())
            if end is None:
                continue
            out = out.blanked(m.start(), end.end())
        return out

    # -- mapping --------------------------------------------------------------------------------
    def _run(self, off: int) -> Run | None:
        i = bisect.bisect_right(self._starts, off) - 1
        if i < 0:
            return None
        r = self.runs[i]
        return r if r.a <= off < r.b or (off == r.b and i == len(self.runs) - 1) else None

    def span(self, a: int, b: int) -> Span:
        """The file span of synthetic range ``[a, b)``."""
        if self.ft is not None:
            return self.ft.span(a, b)
        spans = []
        i = max(0, bisect.bisect_right(self._starts, a) - 1)
        while i < len(self.runs):
            r = self.runs[i]
            if r.a >= b and spans:
                break
            if r.b > a or (a == b and r.a <= a <= r.b):
                if r.site is not None:
                    spans.append(r.site)
                elif r.ft is not None:
                    if r.exact:
                        lo = r.ostart + max(a, r.a) - r.a
                        hi = r.ostart + min(b, r.b) - r.a
                        spans.append(r.ft.span(lo, max(lo, hi)))
                    else:
                        spans.append(r.ft.span(r.ostart, r.oend))
            if r.a >= b:
                break
            i += 1
        return _hull(spans) or Span("", 0, 0, 0, 0)

    def segs(self, chars: list[tuple[str, int]], split: bool = False) -> list[Seg]:
        """Pieces for literal characters ``chars`` = [(char, synthetic offset)], grouped by run."""
        out: list[Seg] = []
        cur_run, cur_text, first, last = None, [], -1, -2
        seen_unknown: set[int] = set()

        def flush():
            if cur_run is None or not cur_text:
                return
            r = cur_run
            text = "".join(cur_text)
            if r.unknown is not None:
                if id(r) in seen_unknown and out and out[-1].unknown is r.unknown:
                    return
                seen_unknown.add(id(r))
                out.append(Seg("", r.ft, r.ostart, r.oend, False, r.site, split, r.unknown))
            elif r.ft is None:
                out.append(Seg(text, None, 0, 0, False, r.site, split))
            elif r.exact:
                lo = r.ostart + first - r.a
                out.append(Seg(text, r.ft, lo, lo + len(text), True, r.site, split))
            else:
                out.append(Seg(text, r.ft, r.ostart, r.oend, False, r.site, split))

        for ch, off in chars:
            r = self._run(off)
            if r is not cur_run or off != last + 1:
                flush()
                cur_run, cur_text, first = r, [], off
            cur_text.append(ch)
            last = off
        flush()
        return out

    def range_seg(self, a: int, b: int, text: str, split: bool = False) -> Seg:
        """A piece whose text was computed (arithmetic) from synthetic range ``[a, b)``."""
        r = self._run(a)
        if r is not None and r.site is None and r.ft is not None and r.unknown is None and b <= r.b:
            if r.exact:
                return Seg(text, r.ft, r.ostart + a - r.a, r.ostart + b - r.a, False, None, split)
            return Seg(text, r.ft, r.ostart, r.oend, False, None, split)
        return Seg(text, None, 0, 0, False, self.span(a, b), split)

    def unknown_in(self, a: int, b: int) -> Unknown | None:
        for r in self.runs:
            if r.unknown is not None and r.a < b and r.b > a:
                return r.unknown
        return None
