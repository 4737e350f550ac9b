"""Turning located words into typed located values, keeping the Word (and its ``origin``)."""

from __future__ import annotations

import copy
import re
from typing import Any

from netlint.located import Scalar

_INT = re.compile(r"[+-]?\d[\d_]*\Z")
_FLOAT_INT = re.compile(r"[+-]?\d+(\.\d*)?([eE][+-]?\d+)\Z")


def typed(s: Scalar, value: Any) -> Scalar:
    """A copy of ``s`` (same class and span) holding ``value``."""
    out = copy.copy(s)
    out.value = value
    return out


def as_int(s: Scalar | None) -> Scalar | None:
    """``s`` as a located int when its value reads as one (Python's int(): ``9_765_625`` ok,
    integral floats like ``5e8`` too), else None."""
    if s is None:
        return None
    v = s.value
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return s
    if isinstance(v, float):
        return typed(s, int(v)) if v.is_integer() else None
    if isinstance(v, str):
        t = v.strip().strip("'\"")
        if _INT.match(t) and not t.endswith("_"):
            try:
                return typed(s, int(t))
            except ValueError:
                return None
        if _FLOAT_INT.match(t):
            f = float(t)
            return typed(s, int(f)) if f.is_integer() else None
    return None


def as_bool(s: Scalar | None) -> Scalar | None:
    if s is None:
        return None
    v = s.value
    if isinstance(v, bool):
        return s
    if isinstance(v, str) and v.strip().lower() in ("true", "false", "1", "0", "yes", "no"):
        return typed(s, v.strip().lower() in ("true", "1", "yes"))
    if isinstance(v, int):
        return typed(s, bool(v))
    return None


def const(value: Any, span) -> Scalar:
    return Scalar(value, span, "")
