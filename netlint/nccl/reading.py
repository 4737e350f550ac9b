"""How NCCL's C code reads a number — ``strtoll(value, NULL, 0)`` (``src/misc/param.cc:78``) — and the
:class:`Problem` a value check returns. Shared by :mod:`netlint.nccl.values` (integers, booleans,
closed sets) and :mod:`netlint.nccl.special` (the variables with their own parsers)."""

from __future__ import annotations

from dataclasses import dataclass, field

INT64_MAX = 2**63 - 1
# legacy integer path levels 0→LOC 1→PIX 2→PXB 3→PHB 4+→SYS (graph/paths.cc:244-280)
LEGACY_LEVELS = ("LOC", "PIX", "PXB", "PHB", "SYS")


@dataclass
class Problem:
    kind: str                 # "invalid" | "misread"
    message: str
    severity: str = "error"   # error | warning | info
    start: int = 0            # offsets into the value (end None = the whole value)
    end: int | None = None
    fix: str | None = None    # the whole new value, when the right one is known
    safe: bool = False
    tags: tuple[str, ...] = field(default_factory=tuple)


@dataclass
class IntParse:
    value: int        # what strtoll returns (0 when no digits)
    end: int          # characters consumed
    base: int
    digits: str       # the digits read, without sign or prefix
    overflow: bool


def strtoll(text: str) -> IntParse:
    """C ``strtoll(text, &end, 0)``: leading space, sign, 0x hex, leading-0 octal, stops at junk."""
    i, n = 0, len(text)
    while i < n and text[i] in " \t\n\v\f\r":
        i += 1
    sign = 1
    if i < n and text[i] in "+-":
        sign = -1 if text[i] == "-" else 1
        i += 1
    base = 10
    if text[i:i + 2].lower() == "0x" and i + 2 < n and text[i + 2] in "0123456789abcdefABCDEF":
        base, i = 16, i + 2
    elif i < n and text[i] == "0":
        base = 8
    valid = "01234567" if base == 8 else "0123456789" if base == 10 else "0123456789abcdefABCDEF"
    j = i
    while j < n and text[j] in valid:
        j += 1
    digits = text[i:j]
    if not digits:
        return IntParse(0, 0, base, "", False)
    if len(digits.lstrip("0")) > 24:  # past any int64: strtoll saturates (and Python's int() refuses 4,301)
        return IntParse(INT64_MAX if sign > 0 else -INT64_MAX - 1, j, base, digits, True)
    value = sign * int(digits, base)
    overflow = not (-INT64_MAX - 1 <= value <= INT64_MAX)
    return IntParse(value, j, base, digits, overflow)


def level_name(n: int) -> str:
    return LEGACY_LEVELS[min(max(n, 0), 4)]
