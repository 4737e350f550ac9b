"""How NCCL reads a value, and what goes wrong when it is written otherwise.

Every rule here models a parser in NCCL's source (research/nccl.md §2; SRC = NVIDIA/nccl 2.30.7):

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
  one unknown subsystem drops the whole value (§2.7);
- the closed string sets of §2.8 and the ranges of §2.9.

:func:`check` returns :class:`Problem` objects; rules decide which to report (``kind``): ``invalid``
(NCCL ignores, rejects or clamps the value: NCCL303) or ``misread`` (NCCL accepts it but reads
something other than what is written: NCCL304).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from netlint.nccl.registry import Var, before, registry

INT64_MAX = 2**63 - 1

TRUE_WORDS = {"true", "yes", "on", "y", "t", "enable", "enabled"}
FALSE_WORDS = {"false", "no", "off", "n", "f", "disable", "disabled"}

# graph/topo.cc:34 topoPathTypeStr; legacy integers 0→LOC 1→PIX 2→PXB 3→PHB 4+→SYS (paths.cc:244-280).
PATH_LEVELS = ("LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS")
LEGACY_LEVELS = ("LOC", "PIX", "PXB", "PHB", "SYS")
MERGE_LEVELS = ("LOC", "PORT", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS")  # topo.cc:1449, xml.h:425
DEBUG_LEVELS = ("VERSION", "WARN", "ATTN", "INFO", "ABORT", "TRACE")   # ATTN new in 2.32 (§2.7)
DEBUG_SUBSYS = ("INIT", "COLL", "P2P", "SHM", "NET", "GRAPH", "TUNING", "ENV", "ALLOC", "ALLOC_HOST",
                "CALL", "PROXY", "NVLS", "BOOTSTRAP", "REG", "PROFILE", "RAS", "DESTROY", "ALL")
FUNCS = ("Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce")       # src/init.cc:52-55
ALGOS = ("Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT")
PROTOS = ("LL", "LL128", "Simple")

# Closed, case-insensitive string sets (§2.8); value → what NCCL does with anything else.
CHOICES: dict[str, tuple[tuple[str, ...], str]] = {
    "NCCL_LAUNCH_MODE": (("PARALLEL", "GROUP"), "NCCL treats it as PARALLEL"),
    "NCCL_CHECK_MODE": (("DEFAULT", "DEBUG_LOCAL", "DEBUG_GLOBAL"), "NCCL keeps DEFAULT"),
    "NCCL_NET_MERGE_POLICY": (("ALL", "RAIL"), "NCCL warns and uses ALL"),
    "NCCL_IB_RAIL_POLICY": (("CX9:FLIP", "CX9:ALT", "CX9:BLOCK"), "NCCL warns 'Unrecognized' and ignores it"),
}
FAMILIES = ("AF_INET", "AF_INET6")   # exact strings (misc/socket.cc, net_ib/connect.cc:103)


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
    value = sign * int(digits, base)
    overflow = not (-INT64_MAX - 1 <= value <= INT64_MAX)
    return IntParse(value, j, base, digits, overflow)


def level_name(n: int) -> str:
    return LEGACY_LEVELS[min(max(n, 0), 4)]


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
            if name in ("NCCL_IB_TC", "NCCL_IB_FIFO_TC", "NCCL_GIN_IB_TC") and meant.isdigit():
                msg += f" (DSCP {p.value >> 2}, not DSCP {int(meant) >> 2})"
        out.append(Problem("misread", msg, "warning", fix=meant if meant.isdigit() else None))
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


# --- special parsers ---------------------------------------------------------------------------------

def _path_level(name: str):
    def check_level(value: str, version) -> list[Problem]:
        if value in PATH_LEVELS:
            return []
        if value[:1].isdigit():
            n = strtoll(value).value
            lvl = level_name(n)
            return [Problem("misread", f"{name}={value} is a legacy integer that NCCL maps to {lvl}; "
                            f"write {lvl}", "info", fix=lvl, safe=True)]
        if value.upper() in PATH_LEVELS:
            return [Problem("invalid", f"{name}={value} is ignored: NCCL compares level names "
                            f"case-sensitively (graph/paths.cc:244-280); write {value.upper()}", "error",
                            fix=value.upper())]
        return [Problem("invalid", f"{name}={value} is not a level NCCL knows ({', '.join(PATH_LEVELS)} or "
                        f"0-5): it is ignored and NCCL keeps its default", "error")]
    return check_level


def _merge_level(value: str, version) -> list[Problem]:
    if any(value.startswith(lvl) for lvl in MERGE_LEVELS):
        return []
    fix = next((lvl for lvl in MERGE_LEVELS if value.upper().startswith(lvl)), None)
    return [Problem("invalid", f"NCCL_NET_MERGE_LEVEL={value} starts with none of {', '.join(MERGE_LEVELS)} "
                    f"(case-sensitive): it is ignored", "error", fix=fix)]


def _debug(value: str, version) -> list[Problem]:
    level = value.strip().upper()
    if level in DEBUG_LEVELS:
        if level == "ATTN" and version is not None and before(version, (2, 32)):
            return [Problem("invalid", "NCCL_DEBUG=ATTN is new in NCCL 2.32; this release logs nothing "
                            "with it", "error", fix="WARN")]
        return []
    hint = {"DEBUG": "INFO", "1": "INFO", "ERROR": "WARN", "WARNING": "WARN"}.get(level)
    msg = (f"NCCL_DEBUG={value} is not a level NCCL knows ({', '.join(DEBUG_LEVELS)}): NCCL logs "
           f"nothing at all")
    if hint:
        msg += f"; did you mean {hint}?"
    return [Problem("invalid", msg, "error", fix=hint)]


def _bitset(name: str, tokens: tuple[str, ...], default: str):
    def check_bits(value: str, version) -> list[Problem]:
        text = value.strip()
        body_at = len(value) - len(value.lstrip())
        if text.startswith("^"):
            text, body_at = text[1:], body_at + 1
        if ";" in text:
            at = value.index(";")
            return [Problem("invalid", f"{name}={value} separates entries with ';'; NCCL wants ',' and "
                            f"drops the whole value (keeps {default})", "error", at, at + 1,
                            fix=value.replace(";", ","))]
        pos = body_at
        for tok in text.split(","):
            t = tok.strip()
            if t and t.upper() not in tokens:   # empty entries: NCCL's handling unconfirmed, no guess
                start = pos + (len(tok) - len(tok.lstrip()))
                return [Problem("invalid", f"{name}: '{t}' is not one of {', '.join(tokens)}; one unknown "
                                f"entry makes NCCL drop the whole value (it keeps {default})", "error",
                                start, start + len(t))]
            pos += len(tok) + 1
        return []
    return check_bits


def _algo_proto(name: str):
    elems = ALGOS if name == "NCCL_ALGO" else PROTOS
    what = "algorithm" if name == "NCCL_ALGO" else "protocol"

    def check_list(value: str, version) -> list[Problem]:
        lower_funcs = {f.lower() for f in FUNCS}
        lower_elems = {e.lower() for e in elems}
        pos = 0
        for gi, group in enumerate(value.split(";")):
            if group == "":   # an empty group (trailing ';'): NCCL's handling unconfirmed, no guess
                pos += 1
                continue
            body, body_at = group, pos
            if ":" in group:
                func, body = group.split(":", 1)
                if func.lower() not in lower_funcs:
                    return [Problem("invalid", f"{name}: '{func}' is not a collective ({', '.join(FUNCS)}): "
                                    f"NCCL fails with ncclInvalidUsage", "error", pos, pos + len(func))]
                if version is not None and before(version, (2, 24)):
                    return [Problem("invalid", f"{name}: per-collective groups ('{func}:') need NCCL 2.24; "
                                    f"this release rejects the value", "error", pos, pos + len(func))]
                body_at = pos + len(func) + 1
            elif gi > 0:
                return [Problem("invalid", f"{name}: every group after the first needs a 'collective:' "
                                f"prefix (\"All entries except the first must have a prefix\"): NCCL fails "
                                f"with ncclInvalidUsage", "error", pos, pos + len(group))]
            if body.startswith("^"):
                body, body_at = body[1:], body_at + 1
            at = body_at
            for tok in body.split(","):
                if tok and tok.lower() not in lower_elems:   # empty tokens: handling unconfirmed
                    stripped = tok.strip()
                    if stripped.lower() in lower_elems:
                        fixed = re.sub(r"\s*([,;:])\s*", r"\1", value.strip())
                        return [Problem("invalid", f"{name}={value}: '{tok}' has a space, and NCCL does not "
                                        f"trim tokens: it fails with ncclInvalidUsage "
                                        f"(\"Unrecognized element token\")", "error", at, at + len(tok),
                                        fix=fixed)]
                    msg = (f"{name}: '{tok}' is not an {what} ({', '.join(elems)}): NCCL fails with "
                           f"ncclInvalidUsage")
                    if tok.lower() == "collnet":
                        msg += "; 'Collnet' was split into CollNetDirect and CollNetChain in 2.14"
                    return [Problem("invalid", msg, "error", at, at + max(len(tok), 1))]
                at += len(tok) + 1
            pos += len(group) + 1
        return []
    return check_list


def _family(name: str):
    def check_family(value: str, version) -> list[Problem]:
        if value in FAMILIES:
            return []
        low = value.lower().replace("_", "").replace("-", "")
        hint = "AF_INET6" if "6" in low else "AF_INET" if low in ("afinet", "inet", "ipv4", "ip4", "4", "ip") else None
        effect = "NCCL uses AF_INET" if name == "NCCL_IB_ADDR_FAMILY" else "NCCL ignores it silently"
        msg = f"{name}={value}: only the exact strings AF_INET and AF_INET6 are understood; {effect}"
        return [Problem("invalid", msg, "error", fix=hint)]
    return check_family


def _cidr(value: str, version) -> list[Problem]:
    import ipaddress

    try:
        ipaddress.ip_network(value, strict=False)
    except ValueError:
        return [Problem("invalid", f"NCCL_IB_ADDR_RANGE={value} is not a CIDR range (addr/len): NCCL "
                        f"ignores it", "error")]
    if "/" not in value:
        return [Problem("invalid", f"NCCL_IB_ADDR_RANGE={value} has no '/len': NCCL ignores it", "error")]
    return []


def _host_port(name: str):
    def check_hp(value: str, version) -> list[Problem]:
        m = re.fullmatch(r"(\[[0-9A-Fa-f:.]+\]|[^:\s\[\]]+):(\d+)", value.strip())
        if not m or not 0 < int(m.group(2)) < 65536:
            return [Problem("invalid", f"{name}={value} is not host:port (or [ipv6]:port)", "error")]
        return []
    return check_hp


def _netdevs_policy(value: str, version) -> list[Problem]:
    v = value.strip().upper()
    if v in ("AUTO", "ALL") or re.fullmatch(r"MAX:\d+", v):
        return []
    return [Problem("invalid", f"NCCL_NETDEVS_POLICY={value} is not AUTO, ALL or MAX:<n>: NCCL uses AUTO",
                    "error")]


def _cta_policy(value: str, version) -> list[Problem]:
    v = value.strip()
    if v in ("0", "1", "2"):
        return []
    if all(t.strip().upper() in ("DEFAULT", "EFFICIENCY", "ZERO") for t in v.split("|")):
        return []
    return [Problem("invalid", f"NCCL_CTA_POLICY={value} is not DEFAULT, EFFICIENCY, ZERO (joined with '|') "
                    f"or 0/1/2: NCCL keeps DEFAULT", "error")]


def _thresholds(value: str, version) -> list[Problem]:
    parts = value.split()
    if len(parts) > 6 or any(not re.fullmatch(r"-?\d+", p) for p in parts):
        return [Problem("invalid", f"NCCL_THREAD_THRESHOLDS={value} must be up to six integers separated "
                        f"by spaces (TreeLL TreeLL128 TreeSimple RingLL RingLL128 RingSimple)", "error")]
    return []


SPECIAL = {
    "NCCL_P2P_LEVEL": _path_level("NCCL_P2P_LEVEL"),
    "NCCL_NET_GDR_LEVEL": _path_level("NCCL_NET_GDR_LEVEL"),
    "NCCL_NET_MERGE_LEVEL": _merge_level,
    "NCCL_DEBUG": _debug,
    "NCCL_DEBUG_SUBSYS": _bitset("NCCL_DEBUG_SUBSYS", DEBUG_SUBSYS, "INIT,BOOTSTRAP,ENV"),
    "NCCL_DEBUG_LEVELS": _bitset("NCCL_DEBUG_LEVELS", DEBUG_LEVELS + ("ALL",), "no extra levels"),
    "NCCL_DEBUG_TIMESTAMP_LEVELS": _bitset("NCCL_DEBUG_TIMESTAMP_LEVELS", DEBUG_LEVELS + ("ALL",),
                                           "its default"),
    "NCCL_ALGO": _algo_proto("NCCL_ALGO"),
    "NCCL_PROTO": _algo_proto("NCCL_PROTO"),
    "NCCL_SOCKET_FAMILY": _family("NCCL_SOCKET_FAMILY"),
    "NCCL_IB_ADDR_FAMILY": _family("NCCL_IB_ADDR_FAMILY"),
    "NCCL_IB_ADDR_RANGE": _cidr,
    "NCCL_COMM_ID": _host_port("NCCL_COMM_ID"),
    "NCCL_RAS_ADDR": _host_port("NCCL_RAS_ADDR"),
    "NCCL_NETDEVS_POLICY": _netdevs_policy,
    "NCCL_CTA_POLICY": _cta_policy,
    "NCCL_THREAD_THRESHOLDS": _thresholds,
}


def int_value(value: str) -> int | None:
    """The integer NCCL's strtoll reads from a clean value, or None (junk, words, overflow)."""
    p = strtoll(value)
    if p.end == 0 or p.overflow or value[p.end:].strip():
        return None
    return p.value
