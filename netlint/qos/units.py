"""Small parsers shared by the switch loaders: speeds, cable lengths, priority lists, ranges."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from netlint.located import Computed, Scalar, Span

_SPEED = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([GgMmTt]?)(?:b(?:ps|/s)?|bE|BE|E)?\s*$")


def parse_speed_mbps(raw: Any) -> int | None:
    """``400G`` → 400000, ``100000`` (Mb/s, SONiC PORT.speed) → 100000, ``25G`` → 25000."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw if raw > 0 else None
    if not isinstance(raw, str):
        return None
    m = _SPEED.match(raw)
    if not m:
        return None
    num, unit = float(m.group(1)), m.group(2).upper()
    mult = {"": 1, "M": 1, "G": 1000, "T": 1_000_000}[unit]
    if not num * mult < 1e18:  # 400 nines overflow a float; no port runs at an exabit
        return None
    val = int(num * mult)
    return val if val > 0 else None


_CABLE = re.compile(r"^\s*(\d+)\s*m?\s*$")


def parse_cable_m(raw: Any) -> int | None:
    """``"5m"`` (SONiC CABLE_LENGTH) or ``5`` → 5 metres."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw if raw >= 0 else None
    if isinstance(raw, str):
        m = _CABLE.match(raw)
        if m:
            return int(m.group(1))
    return None


def inner_span(token: Scalar, offset: int, length: int) -> Span:
    """The span of ``raw[offset:offset+length]`` inside a single-line scalar token.

    A quoted JSON/YAML string's span includes its quotes; the content starts one column later.
    Falls back to the token's span when the token spans lines or has escapes. When the token's own
    position is deferred (JSON positions are computed on first use), so is this one.
    """
    sp = token.span
    if getattr(sp, "deferred_now", False):
        return _INNER.span(sp.file, token, offset, length)  # packs unresolved (netlint/packing.py)
    return _inner_now(token, offset, length)


def _inner_now(token: Scalar, offset: int, length: int) -> Span:
    sp = token.span  # reading line/start resolves a deferred parent first
    if sp.line != sp.end_line or sp.start < 0 or "\\" in (token.raw or ""):
        return sp
    shift = 1 if token.quoted else 0
    start = sp.start + shift + offset
    col = sp.col + shift + offset
    return Span(sp.file, sp.line, col, sp.line, col + length, start, start + length)


_INNER = Computed(_inner_now)


def _is_count(text: str) -> bool:
    """ASCII digits a C reader takes as a number: not '²' or '٣' (str.isdigit says yes, int() fails or
    reads them), not past 64 bits (stoul throws; Python's int() refuses 4,301 digits)."""
    return text.isascii() and text.isdigit() and len(text) <= 19


@lru_cache(maxsize=512)
def _split(raw: str) -> tuple[tuple[tuple[int, int, int, str], ...], tuple[str, ...]]:
    items, bad = [], []
    if raw.strip() == "":
        return (), ()
    pos = 0
    for part in raw.split(","):
        text = part.strip()
        lead = len(part) - len(part.lstrip())
        if _is_count(text):
            items.append((int(text), pos + lead, len(text), text))
        else:
            bad.append(text)
        pos += len(part) + 1
    return tuple(items), tuple(bad)


def split_list(token: Scalar) -> tuple[list[Scalar], list[str]]:
    """``"3,4"`` → [Scalar(3), Scalar(4)] with sub-spans; returns bad items as their text."""
    raw = token.value if isinstance(token.value, str) else str(token.value)
    items, bad = _split(raw)
    return [Scalar(n, inner_span(token, off, ln), text) for n, off, ln, text in items], list(bad)


def expand_range(text: str) -> list[int] | None:
    """``"3"`` → [3]; ``"3-4"`` → [3, 4]; ``"0-2"`` → [0, 1, 2]; anything else → None."""
    text = text.strip()
    if _is_count(text):
        return [int(text)]
    if "-" in text:
        a, _, b = text.partition("-")
        if _is_count(a.strip()) and _is_count(b.strip()):
            lo, hi = int(a), int(b)
            if lo <= hi and hi - lo < 64:
                return list(range(lo, hi + 1))
    if "," in text:
        out: list[int] = []
        for part in text.split(","):
            sub = expand_range(part)
            if sub is None:
                return None
            out.extend(sub)
        return out
    return None


def strip_ref(value: Any) -> Any:
    """``"[BUFFER_PROFILE|name]"`` → ``"name"``; bare names unchanged."""
    if isinstance(value, str) and value.startswith("[") and value.endswith("]") and "|" in value:
        return value[1:-1].split("|", 1)[1]
    return value


def as_int(value: Any) -> int | None:
    """An integer from a SONiC string ("177632") or a JSON/YAML number; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        t = value.strip()
        digits = t[1:] if t.startswith("-") else t
        # ASCII only (int() reads '٣' and refuses '²'), and within Python's int-string limit
        if digits.isascii() and digits.isdigit() and len(digits) <= 4000:
            return int(t)
    return None


def as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        t = value.strip().lower()
        if t in ("true", "on", "enable", "enabled", "yes"):
            return True
        if t in ("false", "off", "disable", "disabled", "no"):
            return False
    return None
