"""Arithmetic for the bash evaluator: ``$(( … ))`` and ``(( … ))`` over integers it knows, Unknown
otherwise. A mixin of :class:`netlint.shell.evaluator.Evaluator`."""

from __future__ import annotations

from netlint.located import Span
from netlint.shell.model import Unknown
from netlint.shell.values import Frame, _INT, _binop, _parse_int, _short


class Arithmetic:
    def _arith(self, n, f: Frame) -> int | Unknown | None:
        t = n.type
        if t == "number":
            return _parse_int(f.text(n))
        if t in ("variable_name", "word"):
            text = f.text(n)
            if _INT.match(text):
                return _parse_int(text)
            return self._arith_var(text, f.span(n))
        if t in ("simple_expansion", "expansion"):
            segs = self._join(self._expand(n, f, quoted=True))
            u = next((s.unknown for s in segs if s.unknown is not None), None)
            if u is not None:
                return u
            return _parse_int("".join(s.text for s in segs).strip() or "0")
        if t == "parenthesized_expression":
            inner = n.named_children
            return self._arith(inner[0], f) if len(inner) == 1 else None
        if t == "unary_expression":
            op = n.children[0]
            inner = n.named_children[-1] if n.named_children else None
            v = self._arith(inner, f) if inner is not None else None
            if not isinstance(v, int):
                return v
            o = f.text(op)
            return {"-": -v, "+": v, "!": int(not v), "~": ~v}.get(o)
        if t == "binary_expression":
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            op = n.child_by_field_name("operator")
            if left is None or right is None or op is None:
                return None
            x, y = self._arith(left, f), self._arith(right, f)
            for v in (x, y):
                if not isinstance(v, int):
                    return v
            return _binop(f.text(op), x, y)
        if t == "ternary_expression":
            c = self._arith(n.child_by_field_name("condition"), f)
            if not isinstance(c, int):
                return c
            branch = n.child_by_field_name("consequence" if c else "alternative")
            return self._arith(branch, f) if branch is not None else None
        if t == "command_substitution":
            return Unknown(f"output of `{_short(f.text(n))}`", f.span(n), "command")
        return None

    def _arith_var(self, name: str, span: Span) -> int | Unknown | None:
        v = self._lookup(name, span)
        if v is None:
            return self._missing(name, span)
        segs = v.segs if v.elems is None else (v.elems[0] if v.elems else [])
        u = next((s.unknown for s in segs if s.unknown is not None), None)
        if u is not None:
            return u
        text = "".join(s.text for s in segs).strip()
        return _parse_int(text or "0")
