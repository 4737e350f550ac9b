"""Values, frames and small pure helpers of the bash evaluator (:mod:`netlint.shell.evaluator`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from netlint.located import Span
from netlint.shell.model import Seg, Unknown, Word
from netlint.shell.provenance import ProvText


_PARSER: list[Any] = []
MAX_DEPTH = 8          # nested source / bash -c / function-call depth
MAX_RECOVERY = 40      # syntax-error lines blanked before giving up
MAX_SOURCE_BYTES = 1_000_000
BREAK = object()       # field boundary between array elements ("${A[@]}")
SHELLS = {"bash", "sh", "zsh", "dash", "ksh"}
DECLARE = {"export", "declare", "typeset", "local", "readonly"}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_INT = re.compile(r"[+-]?\d+\Z")


def _parser():
    if not _PARSER:
        import tree_sitter_bash
        from tree_sitter import Language, Parser

        _PARSER.append(Parser(Language(tree_sitter_bash.language())))
    return _PARSER[0]


class _Exit(Exception):
    pass


class _Return(Exception):
    pass


class Var:
    """A variable's value: ``segs`` (scalar) or ``elems`` (array); ``word`` where it was assigned."""

    __slots__ = ("segs", "elems", "exported", "assigned_at")

    def __init__(self, segs=None, elems=None, exported=False, assigned_at: Span | None = None):
        self.segs = segs
        self.elems = elems
        self.exported = exported
        self.assigned_at = assigned_at

    @property
    def is_array(self) -> bool:
        return self.elems is not None

    def text(self) -> str | None:
        parts = self.segs if self.elems is None else [s for e in self.elems for s in e]
        if any(s.unknown is not None for s in parts):
            return None
        if self.elems is not None:
            return " ".join("".join(s.text for s in e) for e in self.elems)
        return "".join(s.text for s in parts)

    def with_export(self, exported: bool) -> "Var":
        return Var(self.segs, self.elems, exported, self.assigned_at)


def _unknown_var(u: Unknown, exported=False) -> Var:
    return Var([Seg("", None, 0, 0, False, u.span, False, u)], None, exported, u.span)


class Frame:
    """Per-text parse state: the provenance text, byte→char map, file paths."""

    def __init__(self, pt: ProvText, path: str, abspath: Path | None):
        self.pt = pt
        self.path = path            # display path of the file this text belongs to
        self.abspath = abspath      # on-disk path (None for synthetic text)
        data = pt.text.encode("utf-8")
        self.data = data
        if len(data) == len(pt.text):
            self.b2c = None
        else:
            b2c = [0] * (len(data) + 1)
            bi = 0
            for ci, ch in enumerate(pt.text):
                n = len(ch.encode("utf-8"))
                for k in range(n):
                    b2c[bi + k] = ci
                bi += n
            b2c[bi] = len(pt.text)
            self.b2c = b2c

    def c(self, byte: int) -> int:
        return byte if self.b2c is None else self.b2c[byte]

    def rng(self, node) -> tuple[int, int]:
        return self.c(node.start_byte), self.c(node.end_byte)

    def text(self, node) -> str:
        a, b = self.rng(node)
        return self.pt.text[a:b]

    def span(self, node) -> Span:
        a, b = self.rng(node)
        return self.pt.span(a, b)


def _first_error(root):
    """The first ERROR/MISSING node, or a redirection whose target is on a later line (bash
    rejects `cmd >` + newline; tree-sitter quietly takes the next line as the target)."""
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type == "ERROR" or n.is_missing:
            return n
        if n.type == "file_redirect":
            op = next((c for c in n.children if not c.is_named), None)
            dest = n.child_by_field_name("destination")
            if op is not None and dest is not None and dest.start_point[0] != op.end_point[0] \
                    and not _continued(n, op, dest):
                return op
        if n.has_error or n.type in ("program", "redirected_statement", "declaration_command",
                                     "command", "list", "pipeline", "compound_statement",
                                     "if_statement", "do_group", "for_statement", "while_statement",
                                     "function_definition", "subshell", "case_statement",
                                     "case_item", "else_clause", "elif_clause"):
            stack.extend(reversed(n.children))
    return None


def _continued(redirect, op, dest) -> bool:
    """Only blanks and backslash-newlines between a redirection and its target: bash reads the
    target from the next line (`--image <path to docker image> \\` + newline + `--next`)."""
    gap = redirect.text[op.end_byte - redirect.start_byte:dest.start_byte - redirect.start_byte]
    return gap.replace(b"\\\n", b"").strip(b" \t") == b""


def _adjacent_groups(nodes):
    groups, prev_end = [], None
    for n in nodes:
        if groups and prev_end == n.start_byte:
            groups[-1].append(n)
        else:
            groups.append([n])
        prev_end = n.end_byte
    return groups


def _hull_sites(segs: list[Seg]) -> Span | None:
    from netlint.shell.model import _hull

    sites = [s.site for s in segs if s.site is not None]
    return _hull(sites) if sites else None


def _short(text: str, n: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _in_double_bracket(n) -> bool:
    p = n.parent
    while p is not None and p.type != "test_command":
        p = p.parent
    return p is not None and p.children and p.children[0].type == "[["


def _is_quoted(n) -> bool:
    return n.type in ("string", "raw_string")


def _empty(f: Frame, at: int) -> Seg:
    s = f.pt.segs([("x", at)])
    if s and s[0].ft is not None:
        return Seg("", s[0].ft, s[0].ostart, s[0].ostart, True, s[0].site)
    return Seg("", None, 0, 0, False, f.pt.span(at, at))


def _useg(u: Unknown) -> Seg:
    return Seg("", None, 0, 0, False, u.span, False, u)


def _mark(segs: list[Seg], split: bool, site: Span | None) -> list[Seg]:
    return [s.copy(split=split, site=site if site is not None else s.site) for s in segs]


def _split(items) -> list[list[Seg]]:
    """Field splitting: unquoted expansion results split on blanks; BREAK separates elements."""
    words: list[list[Seg]] = []
    cur: list[Seg] = []
    started = False
    for it in items:
        if it is BREAK:
            if started:
                words.append(cur)
            cur, started = [], False
            continue
        if it.unknown is not None or not it.split:
            cur.append(it)
            started = True
            continue
        text = it.text
        i, n = 0, len(text)
        while i < n:
            if text[i] in " \t\n":
                if started:
                    words.append(cur)
                cur, started = [], False
                while i < n and text[i] in " \t\n":
                    i += 1
                continue
            j = i
            while j < n and text[j] not in " \t\n":
                j += 1
            cur.append(it.sub(i, j))
            started = True
            i = j
    if started:
        words.append(cur)
    return words


def _join_words(words: list[Word], span: Span) -> Word:
    parts: list[Seg] = []
    for i, w in enumerate(words):
        if i:
            parts.append(Seg(" ", None, 0, 0, False, span))
        parts.extend(w.parts)
    return Word(parts, span)


def _var_word(v: Var, name: str) -> Word:
    if v.elems is not None:
        return _join_words([Word(e, v.assigned_at) for e in v.elems], v.assigned_at or Span("", 0, 0, 0, 0))
    return Word(list(v.segs or []), v.assigned_at)


def _strip_tabs(w: Word) -> Word:
    out, bol = [], True
    for p in w.parts:
        if p.unknown is not None:
            out.append(p)
            bol = False
            continue
        keep = []
        for i, ch in enumerate(p.text):
            if bol and ch == "\t":
                continue
            bol = ch == "\n"
            keep.append(i)
        # regroup contiguous kept characters
        start = None
        for k, i in enumerate(keep):
            if start is None:
                start = prev = i
            elif i != prev + 1:
                out.append(p.sub(start, prev + 1))
                start = i
            prev = i
        if start is not None:
            out.append(p.sub(start, prev + 1))
    return Word(out, w.span)


def _same(a: Var, b: Var) -> bool:
    if a is b:
        return True
    if (a.elems is None) != (b.elems is None):
        return False
    ta, tb = a.text(), b.text()
    if ta is None or tb is None:
        return False
    if a.elems is not None:
        return [ "".join(s.text for s in e) for e in a.elems] == ["".join(s.text for s in e) for e in b.elems]
    return ta == tb


def _merge(base: dict[str, Var], results: list[dict[str, Var]], kind: str = "branch") -> dict[str, Var]:
    """Join the environments of several branches: equal values survive, differing ones become
    unknown (an array that only grew keeps its common prefix, then one unknown element)."""
    if len(results) == 1:
        # only one branch survived (the others exited): its environment is the outcome, but values
        # it set conditionally stay as they are — the other paths ended the script
        return results[0]
    names = set()
    for r in results:
        names.update(r)
    out: dict[str, Var] = {}
    for name in names:
        vals = [r.get(name) for r in results]
        first = vals[0]
        if all(v is not None for v in vals) and all(_same(first, v) for v in vals[1:]):
            out[name] = first
            continue
        present = [v for v in vals if v is not None]
        exported = any(v.exported for v in present)
        span = next((v.assigned_at for v in present if v.assigned_at is not None), Span("", 0, 0, 0, 0))
        arrays = [v for v in vals if v is not None and v.elems is not None]
        if arrays and len(arrays) == len(vals):
            shortest = min(arrays, key=lambda v: len(v.elems))
            k = len(shortest.elems)
            if all([_etext(e) for e in v.elems[:k]] == [_etext(e) for e in shortest.elems] for v in arrays):
                u = Unknown(f"elements of {name} added only on some paths ({_WHY[kind]})", span, kind,
                            name=name)
                out[name] = Var(None, list(shortest.elems) + [[_useg(u)]], exported, span)
                continue
        scalars = [v for v in vals if v is None or v.elems is None]
        if len(scalars) == len(vals):
            prefix = _common_prefix([v.segs or [] if v is not None else [] for v in vals])
            if prefix:
                # `opts="$opts --x"` under an undecided `if`, `ARGS="$ARGS $1"` in an option loop:
                # what every path shares stays known; only the tail is unknown (and may be empty)
                u = Unknown(f"the rest of ${name} {_WHY2[kind]}", span, kind, name=name)
                out[name] = Var(prefix + [Seg(" ", None, 0, 0, False, span), _useg(u)], None, exported, span)
                continue
        u = Unknown(f"${name} {_WHY2[kind]}", span, kind, name=name)
        out[name] = _unknown_var(u, exported)
    return out


def _units(segs: list[Seg]) -> list[tuple[Seg, int]]:
    """A value as a list of (piece, character index); an unknown piece is one unit (index -1)."""
    out: list[tuple[Seg, int]] = []
    for s in segs:
        if s.unknown is not None:
            out.append((s, -1))
        else:
            out.extend((s, i) for i in range(len(s.text)))
    return out


def _same_unit(a: tuple[Seg, int], b: tuple[Seg, int]) -> bool:
    if a[1] < 0 or b[1] < 0:
        return a[1] < 0 and b[1] < 0 and a[0].unknown is b[0].unknown
    return a[0].text[a[1]] == b[0].text[b[1]]


def _common_prefix(values: list[list[Seg]]) -> list[Seg]:
    """The pieces every value starts with, cut at a blank that ends a field in every value (so the
    words of the prefix are whole words of each value); ``[]`` when there is no such prefix."""
    units = [_units(v) for v in values]
    n = min(len(u) for u in units)
    k = 0
    while k < n and all(_same_unit(units[0][k], u[k]) for u in units[1:]):
        k += 1

    def blank(u, i):
        return i >= len(u) or (u[i][1] >= 0 and u[i][0].text[u[i][1]] in " \t\n")

    while k > 0 and not all(blank(u, k) for u in units):
        k -= 1
    first = units[0][:k]
    if not any(i >= 0 and s.text[i] not in " \t\n" for s, i in first):
        return []
    out: list[Seg] = []
    j = 0
    while j < len(first):
        s, i = first[j]
        if i < 0:
            out.append(s)
            j += 1
            continue
        start = i
        while j + 1 < len(first) and first[j + 1][0] is s and first[j + 1][1] == i + 1:
            j += 1
            i += 1
        out.append(s.sub(start, i + 1))
        j += 1
    return out


_WHY = {"branch": "an if/case/&& netlint cannot decide", "loop": "a loop body"}
_WHY2 = {"branch": "differs between branches netlint cannot decide", "loop": "is assigned in a loop"}


def _etext(e: list[Seg]) -> str | None:
    if any(s.unknown is not None for s in e):
        return None
    return "".join(s.text for s in e)


def _parse_int(text: str) -> int | None:
    text = text.strip()
    try:
        if re.fullmatch(r"[+-]?0[xX][0-9a-fA-F]+", text):
            return int(text, 16)
        if re.fullmatch(r"[+-]?0[0-7]+", text):
            return int(text, 8)
        if _INT.match(text):
            return int(text)
        m = re.fullmatch(r"(\d+)#([0-9a-zA-Z@_]+)", text)
        if m:
            return int(m.group(2), int(m.group(1)))
    except ValueError:
        return None
    return None


def _binop(op: str, x: int, y: int) -> int | None:
    try:
        if op == "+":
            return x + y
        if op == "-":
            return x - y
        if op == "*":
            return x * y
        if op == "/":
            if y == 0:
                return None
            q = abs(x) // abs(y)
            return q if (x >= 0) == (y >= 0) else -q
        if op == "%":
            if y == 0:
                return None
            r = abs(x) % abs(y)
            return r if x >= 0 else -r
        if op == "**":
            return x ** y if 0 <= y < 256 else None
        if op == "<<":
            return x << y if 0 <= y < 256 else None
        if op == ">>":
            return x >> y if y >= 0 else None
        cmp = {"<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y, "==": x == y, "!=": x != y,
               "&&": bool(x and y), "||": bool(x or y)}
        if op in cmp:
            return int(cmp[op])
        if op == "&":
            return x & y
        if op == "|":
            return x | y
        if op == "^":
            return x ^ y
    except (OverflowError, ValueError):
        return None
    return None


def _pattern_op(value: str, op: str, pat: str, operand, f) -> str | None:
    import fnmatch as fm

    if op in ("#", "##", "%", "%%"):
        if not pat:
            return value
        rng = range(len(value) + 1)
        if op in ("#", "##"):
            cands = [i for i in rng if fm.fnmatchcase(value[:i], pat)]
            if not cands:
                return value
            return value[(max(cands) if op == "##" else min(cands)):]
        cands = [i for i in rng if fm.fnmatchcase(value[i:], pat)]
        if not cands:
            return value
        return value[:(min(cands) if op == "%%" else max(cands))]
    if op in ("^^", ",,", "^", ","):
        return {"^^": value.upper(), ",,": value.lower(), "^": value[:1].upper() + value[1:],
                ",": value[:1].lower() + value[1:]}[op]
    return None
