"""The part of ``sed`` and ``envsubst`` that launch scripts use to fill config templates, applied to
text that remembers where each character came from (:class:`Mapped`).

sed (GNU sed manual, "The s Command" and "Invocation"): ``sed [-E] [-i[SUF]] [-e SCRIPT]… [SCRIPT]
[FILE]…``; a script is ``s/REGEXP/REPLACEMENT/FLAGS`` commands separated by ``;`` or newlines, any
character but backslash and newline may stand for ``/``; each input line is matched on its own;
without ``g`` only the first match of a line is replaced, with ``N`` the N-th; ``&`` is the match
and ``\\1``-``\\9`` its groups. Anything else (addresses, other commands, ``\\U`` case conversion,
``p``/``w``/``e`` flags, ``-n``, ``-f``) is not evaluated: the result is then unknown, never guessed.

envsubst (envsubst(1), GNU gettext): ``$VARIABLE`` and ``${VARIABLE}`` replaced by the environment's
values; with a SHELL-FORMAT argument only the variables it names; ``${VAR:-x}`` and other shell
forms are left as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from netlint.located import Span

if TYPE_CHECKING:
    from netlint.shell import Word
    from netlint.shell.model import FileText

UNKNOWN = "\x00"  # one character per unknown piece of a shell word, as Word.slice counts them


def word_text(w: "Word") -> str:
    return "".join(UNKNOWN if p.unknown is not None else p.text for p in w.parts)


@dataclass
class Mapped:
    """Text derived from one template file: for each character the template range it stands for
    (``lo``/``hi``) and, when a substitution wrote it, the index of that substitution's location
    in ``origins``. ``unknown``: (message, span) of each substitution whose result is unknown."""

    text: str
    lo: list[int]
    hi: list[int]
    via: list[int]
    ft: "FileText"
    origins: list[Span] = field(default_factory=list)
    unknown: list[tuple[str, Span]] = field(default_factory=list)

    @classmethod
    def of_file(cls, ft: "FileText") -> "Mapped":
        n = len(ft.text)
        return cls(ft.text, list(range(n)), list(range(1, n + 1)), [-1] * n, ft)

    def derived(self, text, lo, hi, via) -> "Mapped":
        return Mapped("".join(text), lo, hi, via, self.ft, list(self.origins), list(self.unknown))

    def span(self, start: int, end: int) -> Span:
        """The template span of characters ``[start, end)`` of this text."""
        n = len(self.text)
        if start >= n:
            return self.ft.span(len(self.ft.text), len(self.ft.text))
        end = max(min(end, n), start + 1)
        return self.ft.span(min(self.lo[start:end]), max(self.hi[start:end]))

    def origin(self, start: int, end: int) -> Span | None:
        """Where the value of ``[start, end)`` was written, when a substitution wrote part of it."""
        for k in range(start, min(end, len(self.text))):
            if self.via[k] >= 0:
                return self.origins[self.via[k]]
        return None


class Unsupported(Exception):
    """A sed script or option netlint does not evaluate (the message says which)."""


# ------------------------------------------------------------------------------- regular expressions
_BRE_SPECIAL = {"(": "(", ")": ")", "{": "{", "}": "}", "|": "|", "+": "+", "?": "?"}
_ESCAPES = {"n": "\n", "t": "\t"}
_CLASSES = set("wWsSbB")


def to_python_regex(pat: str, extended: bool, delim: str = "/") -> str:
    """A GNU sed regular expression (BRE, or ERE with ``-E``) as a Python one; ``\\`` + the s
    command's delimiter is that character, literally."""
    out: list[str] = []
    i, n = 0, len(pat)
    while i < n:
        c = pat[i]
        if c == "\\" and i + 1 < n:
            d = pat[i + 1]
            i += 2
            if d == delim:
                out.append(re.escape(d))
            elif not extended and d in _BRE_SPECIAL:
                out.append(_BRE_SPECIAL[d])
            elif d.isascii() and d.isdigit() and d != "0":
                out.append("\\" + d)
            elif d in _ESCAPES:
                out.append(re.escape(_ESCAPES[d]))
            elif d in _CLASSES:
                out.append("\\" + d)
            elif d in "<>":
                out.append(r"\b")
            elif d in "`'":
                out.append(r"\A" if d == "`" else r"\Z")
            else:
                out.append(re.escape(d))
            continue
        if c == "[":
            j = i + 1
            if j < n and pat[j] == "^":
                j += 1
            if j < n and pat[j] == "]":
                j += 1
            while j < n and pat[j] != "]":
                if pat.startswith("[:", j) or pat.startswith("[=", j) or pat.startswith("[.", j):
                    raise Unsupported("a POSIX character class")
                j += 1
            if j >= n:
                raise Unsupported("an unclosed bracket expression")
            body = pat[i + 1:j].replace("\\", "\\\\")
            out.append("[" + body + "]")
            i = j + 1
            continue
        if not extended and c in "(){}|+?":
            out.append(re.escape(c))
        elif c == "*" and (not out or out[-1] in ("(", "^")) and not extended:
            out.append(r"\*")
        elif c == "^" and not extended and i != 0:
            out.append(r"\^")
        elif c == "$" and not extended and i != n - 1:
            out.append(r"\$")
        else:
            out.append(c)
        i += 1
    return "".join(out)


# ---------------------------------------------------------------------------------- s commands
@dataclass
class Subst:
    """One ``s`` command. ``repl``: literal strings and group numbers; ``at``: where the replacement
    was written (for findings); ``unknown``: why the pattern or replacement is not known."""

    regex: "re.Pattern | None"
    repl: list
    glob: bool
    nth: int
    text: str              # the command as written (unknown pieces shown as …)
    at: Span
    unknown: str = ""


def _until(s: str, i: int, delim: str) -> tuple[str, int]:
    """The text up to the next unescaped ``delim`` from ``i`` (escapes kept), and the index after it."""
    j = i
    while j < len(s):
        if s[j] == "\\" and j + 1 < len(s):
            j += 2
            continue
        if s[j] == delim:
            return s[i:j], j + 1
        if s[j] == "\n":
            break
        j += 1
    raise Unsupported("an unterminated s command")


def _replacement(raw: str, delim: str) -> list:
    parts: list = []
    buf: list[str] = []
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == "\\" and i + 1 < len(raw):
            d = raw[i + 1]
            i += 2
            if d.isascii() and d.isdigit():
                parts.extend(["".join(buf), int(d)])
                buf = []
            elif d in "LUluE":
                raise Unsupported(f"case conversion \\{d}")
            else:
                buf.append("\n" if d == "\n" else _ESCAPES.get(d, d))
            continue
        if c == "&":
            parts.extend(["".join(buf), 0])
            buf = []
        else:
            buf.append(c)
        i += 1
    parts.append("".join(buf))
    return [p for p in parts if p != ""]


def parse_script(script: str, word: "Word", offset: int, extended: bool) -> list[Subst]:
    """The ``s`` commands of ``script`` (``word``'s text from ``offset``)."""
    cmds: list[Subst] = []
    i, n = 0, len(script)
    while i < n:
        c = script[i]
        if c in " \t\n;":
            i += 1
            continue
        if c == "#":
            j = script.find("\n", i)
            i = n if j < 0 else j
            continue
        if c == UNKNOWN:
            raise Unsupported("a script that is unknown")
        if c != "s" or i + 1 >= n or script[i + 1] in "\\\n" + UNKNOWN:
            raise Unsupported(f"the sed command `{script[i:i + 20].replace(UNKNOWN, '…')}`")
        start, delim = i, script[i + 1]
        pat, j = _until(script, i + 2, delim)
        rstart = j
        rep, j = _until(script, j, delim)
        glob, nth, icase = False, 1, False
        while j < n and script[j] not in ";\n}#":
            f = script[j]
            if f == "g":
                glob = True
            elif f.isascii() and f.isdigit():
                k = j
                while k < n and script[k] in "0123456789":
                    k += 1
                nth, j = int(script[j:k]), k
                continue
            elif f in "iI":
                icase = True
            elif not f.isspace():
                raise Unsupported(f"the s flag `{f}`")
            j += 1
        written = script[start:j].replace(UNKNOWN, "…")
        at = word.span_of(offset + rstart, offset + rstart + len(rep)) if rep else word.span
        why = ""
        regex = None
        if UNKNOWN in pat:
            why = "its pattern is unknown"
        else:
            if pat == "":
                raise Unsupported("an empty regular expression (the previous one)")
            try:
                regex = re.compile(to_python_regex(pat, extended, delim), re.I if icase else 0)
            except re.error as exc:
                raise Unsupported(f"the regular expression `{pat}` ({exc})") from None
        if UNKNOWN in rep and not why:
            u = word.slice(offset + rstart, offset + rstart + len(rep)).value
            why = f"its replacement is unknown ({getattr(u, 'reason', 'unknown')})"
        repl = [] if UNKNOWN in rep else _replacement(rep, delim)
        cmds.append(Subst(regex, repl, glob, nth, written, at, why))
        i = j
    return cmds


def apply_substs(m: Mapped, cmds: list[Subst]) -> Mapped:
    """``cmds`` applied to every line of ``m`` in order, as one sed invocation does."""
    text, lo, hi, via = [], [], [], []
    origins = list(m.origins)
    unknown = list(m.unknown)
    idx = []
    for c in cmds:
        origins.append(c.at)
        idx.append(len(origins) - 1)
    reported: set[int] = set()
    pos, n = 0, len(m.text)
    while pos < n:
        nl = m.text.find("\n", pos)
        end = n if nl < 0 else nl
        line = (m.text[pos:end], m.lo[pos:end], m.hi[pos:end], m.via[pos:end])
        anchor = m.lo[end] if end < n else (m.hi[end - 1] if end else 0)
        for k, c in enumerate(cmds):
            line, hit = _subst(line, c, idx[k], anchor)
            if hit and c.unknown and k not in reported:
                reported.add(k)
                unknown.append((f"`sed {c.text}` fills the template, but {c.unknown}", c.at))
        text.append(line[0])
        lo += line[1]
        hi += line[2]
        via += line[3]
        if nl < 0:
            break
        text.append("\n")
        lo.append(m.lo[nl])
        hi.append(m.hi[nl])
        via.append(m.via[nl])
        pos = nl + 1
    out = m.derived(text, lo, hi, via)
    out.origins, out.unknown = origins, unknown
    return out


def _subst(line, c: Subst, origin: int, anchor: int):
    s, lo, hi, via = line
    if c.regex is None:
        return line, True  # an unknown pattern may match anything: the result is unknown
    found, last = [], -1
    for m in c.regex.finditer(s):
        if m.start() == m.end() == last:
            continue  # sed never matches empty right after a match (Python's re does)
        found.append(m)
        last = m.end()
    pick = found[c.nth - 1:] if c.glob else found[c.nth - 1:c.nth]
    if not pick:
        return line, False
    ns, nlo, nhi, nvia = [], [], [], []
    prev = 0
    for m in pick:
        a, b = m.span()
        ns.append(s[prev:a])
        nlo += lo[prev:a]
        nhi += hi[prev:a]
        nvia += via[prev:a]
        mlo = min(lo[a:b]) if b > a else (lo[a] if a < len(lo) else anchor)
        mhi = max(hi[a:b]) if b > a else mlo
        for part in c.repl:
            if isinstance(part, int):
                ga, gb = m.span(part) if m.group(part) is not None else (a, a)
                ns.append(s[ga:gb])
                nlo += lo[ga:gb]
                nhi += hi[ga:gb]
                nvia += via[ga:gb]
            else:
                ns.append(part)
                nlo += [mlo] * len(part)
                nhi += [mhi] * len(part)
                nvia += [origin] * len(part)
        prev = b
    ns.append(s[prev:])
    nlo += lo[prev:]
    nhi += hi[prev:]
    nvia += via[prev:]
    return ("".join(ns), nlo, nhi, nvia), True


# ------------------------------------------------------------------------------------- envsubst
_REF = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def envsubst(m: Mapped, env: dict, only: set[str] | None) -> Mapped:
    """``env``: name → Word (a value of the command's environment). A name absent from it may be set
    by whoever runs the script, so it is unknown, not empty."""
    text, lo, hi, via = [], [], [], []
    origins, unknown = list(m.origins), list(m.unknown)
    prev = 0
    for ref in _REF.finditer(m.text):
        name = ref.group(1) or ref.group(2)
        if only is not None and name not in only:
            continue
        a, b = ref.span()
        text.append(m.text[prev:a])
        lo += m.lo[prev:a]
        hi += m.hi[prev:a]
        via += m.via[prev:a]
        w = env.get(name)
        value = getattr(w, "value", None)
        if not isinstance(value, str):
            why = getattr(value, "reason", None) or f"{name} is not exported by the script (envsubst reads " \
                "the environment)"
            unknown.append((f"envsubst fills {ref.group(0)}, but its value is unknown ({why})", m.span(a, b)))
            value = ref.group(0)
            k = -1
        else:
            origins.append(getattr(w, "span", None) or m.span(a, b))
            k = len(origins) - 1
        text.append(value)
        lo += [min(m.lo[a:b])] * len(value)
        hi += [max(m.hi[a:b])] * len(value)
        via += [k] * len(value)
        prev = b
    text.append(m.text[prev:])
    lo += m.lo[prev:]
    hi += m.hi[prev:]
    via += m.via[prev:]
    out = m.derived(text, lo, hi, via)
    out.origins, out.unknown = origins, unknown
    return out
