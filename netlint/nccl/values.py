"""How NCCL reads a value, and what goes wrong when it is written otherwise.

Every rule here models a parser in NCCL's source (SRC = NVIDIA/nccl@5067397c, 2.30.7):

- legacy ``NCCL_PARAM`` integers and booleans: ``strtoll(value, NULL, 0)`` (``src/misc/param.cc:78``):
  decimal, ``0x`` hex, **octal after a leading 0**, words parse as 0, the number stops at the first
  non-digit, only overflow reverts to the default (§2.2);
- new-registry booleans (``DEFINE_NCCL_PARAM``, 2.29+): ``1/T/TRUE`` or ``0/F/FALSE``, anything else keeps
  the default (§2.2, WHEEL dump);
- ``NCCL_P2P_LEVEL``/``NCCL_NET_GDR_LEVEL``: exact, case-sensitive path names or a legacy integer; any
  other value is ignored (``graph/paths.cc:244-280``, §2.5);
- ``NCCL_ALGO``/``NCCL_PROTO``: ``parseList()`` (``graph/tuning.cc:55-135``): tokens not trimmed, an
  unknown token fails with ``ncclInvalidUsage`` (§2.6);
- ``NCCL_DEBUG``/``NCCL_DEBUG_SUBSYS``: case-insensitive, trimmed; an unknown level turns logging off and
  one unknown subsystem drops the whole value from NCCL 2.30.7 (earlier releases skip it) (§2.7);
- the closed string sets of §2.8 and the ranges of §2.9.

:func:`check` returns :class:`Problem` objects; rules decide which to report (``kind``): ``invalid``
(NCCL ignores, rejects or clamps the value: NCCL303) or ``misread`` (NCCL accepts it but reads
something other than what is written: NCCL304).

``strtoll`` and :class:`Problem` are in :mod:`netlint.nccl.reading`, the variables with parsers of
their own in :mod:`netlint.nccl.special`.
"""

from __future__ import annotations

import re

from netlint.nccl.registry import Var, before, registry
# Primitives and the special parsers live in reading.py and special.py; rules import Problem,
# strtoll and the tables from here.
from netlint.nccl.reading import INT64_MAX, LEGACY_LEVELS, IntParse, Problem, level_name, strtoll  # noqa: F401
from netlint.nccl.special import (ALGOS, DEBUG_LEVELS, DEBUG_SUBSYS, FAMILIES, FUNCS, MERGE_LEVELS,  # noqa: F401
                                  PATH_LEVELS, PROTOS, SPECIAL)

TRUE_WORDS = {"true", "yes", "on", "y", "t", "enable", "enabled"}
FALSE_WORDS = {"false", "no", "off", "n", "f", "disable", "disabled"}


# Closed, case-insensitive string sets (§2.8); value → what NCCL does with anything else.
CHOICES: dict[str, tuple[tuple[str, ...], str]] = {
    "NCCL_LAUNCH_MODE": (("PARALLEL", "GROUP"), "NCCL treats it as PARALLEL"),
    "NCCL_CHECK_MODE": (("DEFAULT", "DEBUG_LOCAL", "DEBUG_GLOBAL"), "NCCL keeps DEFAULT"),
    "NCCL_NET_MERGE_POLICY": (("ALL", "RAIL"), "NCCL warns and uses ALL"),
    "NCCL_IB_RAIL_POLICY": (("CX9:FLIP", "CX9:ALT", "CX9:BLOCK"), "NCCL warns 'Unrecognized' and ignores it"),
}


# --- which parser a variable goes through --------------------------------------------------------

def parser_of(var: Var) -> str | None:
    """``strtoll`` | ``registry-bool`` | ``level`` | ``special`` | None (no value check)."""
    if var.external or var.unconfirmed or var.status == "removed":
        return None
    if var.name in SPECIAL:
        return "special"
    if "1/T/TRUE" in var.allowed:
        return "registry-bool"
    if var.type in ("int", "bool", "size"):
        if var.name in ("NCCL_RAS_TIMEOUT_FACTOR", "NCCL_MNNVL_UUID", "NCCL_MNNVL_CLIQUE_ID"):
            return None
        return "strtoll"
    if var.type == "enum" and re.match(r"^-?\d+\s*(\||[a-z(]|$)", var.allowed):
        return "strtoll"   # 0 off | 1 on | 2 auto: an NCCL_PARAM integer
    return None


_RANGE = re.compile(r"^(?:[a-z]+ )?(-?\d+)\.\.(-?\d+)")
_MIN = re.compile(r"^>=?\s*(-?\d+)")
_GT = re.compile(r"^>\s*(-?\d+)")


def int_domain(var: Var, version: tuple[int, ...] | None) -> tuple[int | None, int | None, set[int] | None, set[int]]:
    """(low, high, allowed set, extra allowed values such as -1/-2 auto) from the ``allowed`` column."""
    allowed = var.allowed.split(";")[0] if not re.match(r"^-?\d+\|", var.allowed) else var.allowed
    lo = hi = None
    values: set[int] | None = None
    extra: set[int] = set()
    if m := _RANGE.match(allowed):
        lo, hi = int(m.group(1)), int(m.group(2))
        if (b := re.search(r"\((\d+) before (\d+\.\d+)\)", allowed)) and version is not None \
                and before(version, tuple(int(x) for x in b.group(2).split("."))):
            hi = int(b.group(1))
    elif m := _GT.match(allowed):
        lo = int(m.group(1)) + 1
    elif m := _MIN.match(allowed):
        lo = int(m.group(1))
        if c := re.search(r"\(<=(\d+)\)", allowed):
            hi = int(c.group(1))
    elif re.match(r"^-?\d+(\|-?\d+)+\b", allowed):
        values = {int(x) for x in re.match(r"^[-\d|]+", allowed).group(0).split("|") if x}
    elif "|" in allowed and re.match(r"^-?\d+\s", allowed):
        values = {int(x) for x in re.findall(r"(?:^|\|)\s*(-?\d+)\b", allowed)}
    for auto in ("-1", "-2"):
        if re.search(rf"(?<![\d.]){auto}\b", allowed) or re.search(rf"(?<![\d.]){auto}\b", var.default):
            extra.add(int(auto))
    if var.name == "NCCL_IB_DISABLE":     # any non-zero integer disables (net_ib/init.cc:291)
        values, lo, hi = None, None, None
    return lo, hi, values, extra


# --- the checks ------------------------------------------------------------------------------------

def check(name: str, value: str, version: tuple[int, ...] | None = None) -> list[Problem]:
    """Problems with ``value`` for variable ``name`` (an empty list when it reads as written)."""
    var = registry().get(name)
    if var is None or value == "":
        return []
    kind = parser_of(var)
    if kind == "special":
        return SPECIAL[name](value, version)
    if kind == "registry-bool":
        return _registry_bool(name, value, var)
    if kind == "strtoll":
        return _integer(name, value, var, version)
    if name in CHOICES:
        return _choice(name, value)
    return []


def _integer(name: str, value: str, var: Var, version) -> list[Problem]:
    p = strtoll(value)
    word = value.strip().lower()
    if p.end == 0:
        if word in TRUE_WORDS:
            return [Problem("misread", f"{name}={value} parses as 0 (strtoll reads no digits), so the "
                            f"setting is off, not on; write 1", "error", fix="1")]
        if word in FALSE_WORDS:
            return [Problem("misread", f"{name}={value} parses as 0 only because strtoll reads no digits; "
                            f"write 0", "info", fix="0", safe=True)]
        return [Problem("misread", f"{name}={value} is not a number: NCCL's strtoll reads it as 0",
                        "warning")]
    if p.overflow:
        return [Problem("invalid", f"{name}={value} overflows a 64-bit integer: NCCL ignores it and "
                        f"uses the default ({var.default})", "error")]
    out: list[Problem] = []
    rest = value[p.end:]
    if p.base == 8 and len(p.digits) > 1:
        meant = value.strip().lstrip("+-").lstrip("0") or "0"
        if rest[:1] in ("8", "9"):
            msg = (f"{name}={value} starts with 0, so NCCL reads it as octal and stops at "
                   f"'{rest[0]}': the value is {p.value}")
        else:
            msg = f"{name}={value} starts with 0, so NCCL reads it as octal: the value is {p.value}, not {meant}"
            if name in ("NCCL_IB_TC", "NCCL_IB_FIFO_TC", "NCCL_GIN_IB_TC") and meant.isascii() and meant.isdigit():
                msg += f" (DSCP {p.value >> 2}, not DSCP {int(meant) >> 2})"
        out.append(Problem("misread", msg, "warning", fix=meant if meant.isascii() and meant.isdigit() else None))
        return out
    if rest.strip():
        junk = rest.strip()
        msg = f"{name}={value} is read as {p.value}: strtoll stops at '{junk[0]}'"
        fix = None
        sev = "warning"
        unit = re.fullmatch(r"([KkMmGg])(i?[Bb])?", junk)
        if unit and var.type == "size":
            mult = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[junk[0].lower()]
            fix = str(p.value * mult)
            msg += f"; size suffixes are not understood, write bytes ({fix})"
            sev = "error"
        out.append(Problem("misread", msg, sev, start=p.end, end=len(value.rstrip()), fix=fix))
        return out
    n = p.value
    if name in ("NCCL_SHM_DISABLE", "NCCL_P2P_DISABLE") and n not in (0, 1):
        return [Problem("misread", f"{name}={value}: only the value 1 disables (transport/shm.cc:66, "
                        f"graph/paths.cc:250); {n} leaves it enabled", "warning")]
    if name == "NCCL_IB_TIMEOUT":
        return out   # 0 and >= 32 mean "infinite": the risky-timeout rule (NCCL316) owns them
    if name in ("NCCL_NTHREADS", "NCCL_LL128_NTHREADS"):
        lo, hi = (64, 512) if name == "NCCL_NTHREADS" else (160, 640)
        if n % 32 or not lo <= n <= hi:
            clamp = min(max(n - n % 32, lo), hi)
            out.append(Problem("invalid", f"{name}={value} must be a multiple of 32 in {lo}..{hi}; "
                               f"NCCL clamps it (tuning.cc:17-32) to {clamp}", "warning", fix=str(clamp)))
        return out
    lo, hi, values, extra = int_domain(var, version)
    if n in extra:
        return out
    if values is not None and n not in values:
        allowed = "|".join(str(v) for v in sorted(values))
        words = f" ({var.allowed})" if re.search(r"[a-z]", var.allowed) else ""
        out.append(Problem("invalid", f"{name}={value} is not one of {allowed}{words}", "error"))
    elif (lo is not None and n < lo) or (hi is not None and n > hi):
        rng = f"{lo}..{hi}" if lo is not None and hi is not None else f">= {lo}" if lo is not None else f"<= {hi}"
        note = re.search(r"\(([^)]*[a-z][^)]*)\)", var.allowed.split(";")[0])
        out.append(Problem("invalid", f"{name}={value} is outside {rng}" + (f" ({note.group(1)})" if note else ""),
                           "error"))
    elif var.type == "bool" and values is None and lo is None and var.allowed.startswith("0|1") \
            and name != "NCCL_IB_DISABLE" and n not in (0, 1):
        out.append(Problem("invalid", f"{name}={value}: this switch takes 0 or 1", "warning"))
    return out


def _registry_bool(name: str, value: str, var: Var) -> list[Problem]:
    if value.strip().upper() in ("1", "T", "TRUE", "0", "F", "FALSE"):
        return []
    return [Problem("invalid", f"{name}={value} is not 1/T/TRUE or 0/F/FALSE: NCCL keeps the default "
                    f"({var.default})", "error")]


def _choice(name: str, value: str) -> list[Problem]:
    options, effect = CHOICES[name]
    if value.strip().upper() in options:
        return []
    return [Problem("invalid", f"{name}={value} is not one of {', '.join(options)}: {effect}", "error")]




def int_value(value: str) -> int | None:
    """The integer NCCL's strtoll reads from a clean value, or None (junk, words, overflow)."""
    p = strtoll(value)
    if p.end == 0 or p.overflow or value[p.end:].strip():
        return None
    return p.value
