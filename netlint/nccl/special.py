"""The NCCL variables read by a parser of their own (NVIDIA/nccl@5067397c ``src/``): path and merge levels,
``NCCL_DEBUG`` and the debug bitsets, ``NCCL_ALGO``/``NCCL_PROTO`` lists, address families, CIDR and
host:port values, the NETDEVS/CTA policies and thread thresholds. :data:`SPECIAL` maps each name to
its check; :func:`netlint.nccl.values.check` dispatches to it."""

from __future__ import annotations

import re

from netlint.nccl.reading import Problem, level_name, strtoll
from netlint.nccl.registry import before

# graph/topo.cc:34 topoPathTypeStr; legacy integers 0→LOC 1→PIX 2→PXB 3→PHB 4+→SYS (paths.cc:244-280).
PATH_LEVELS = ("LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS")
MERGE_LEVELS = ("LOC", "PORT", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS")  # topo.cc:1449, xml.h:425
DEBUG_LEVELS = ("VERSION", "WARN", "ATTN", "INFO", "ABORT", "TRACE")   # ATTN new in 2.32 (§2.7)
DEBUG_SUBSYS = ("INIT", "COLL", "P2P", "SHM", "NET", "GRAPH", "TUNING", "ENV", "ALLOC", "ALLOC_HOST",
                "CALL", "PROXY", "NVLS", "BOOTSTRAP", "REG", "PROFILE", "RAS", "DESTROY", "ALL")
FUNCS = ("Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce")       # src/init.cc:52-55
ALGOS = ("Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT")
PROTOS = ("LL", "LL128", "Simple")
FAMILIES = ("AF_INET", "AF_INET6")   # exact strings (misc/socket.cc, net_ib/connect.cc:103)


# --- special parsers ---------------------------------------------------------------------------------

def _path_level(name: str):
    def check_level(value: str, version) -> list[Problem]:
        if value in PATH_LEVELS:
            return []
        if value[:1] in tuple("0123456789"):
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


# NCCL 2.30.7 parses these lists with ncclParamBitsetOf, which rejects the whole value on one unknown
# token (src/include/param/parser_bitset.h); up to 2.30.4 each token was strcasecmp'd and an unknown
# one skipped (NVIDIA/nccl v2.30.4-1 src/debug.cc L93-140)
STRICT_BITSETS = (2, 30, 7)


def _bitset(name: str, tokens: tuple[str, ...], default: str):
    def check_bits(value: str, version) -> list[Problem]:
        text = value.strip()
        body_at = len(value) - len(value.lstrip())
        inverted = text.startswith("^")
        if inverted:
            text, body_at = text[1:], body_at + 1
        strict = version is not None and not before(version, STRICT_BITSETS)
        lenient = version is not None and before(version, STRICT_BITSETS)
        if ";" in text:
            at = value.index(";")
            then = (f"NCCL drops the whole value (keeps {default})" if strict else
                    "NCCL before 2.30.7 reads the ';'-joined words as one unknown entry and skips it" if lenient
                    else f"NCCL 2.30.7 and later drop the whole value (keep {default}); earlier releases read the "
                         f"';'-joined words as one unknown entry and skip it")
            return [Problem("invalid", f"{name}={value} separates entries with ';'; NCCL wants ',': {then}",
                            "error", at, at + 1, fix=value.replace(";", ","))]
        pos = body_at
        for tok in text.split(","):
            t = tok.strip()
            if t and t.upper() not in tokens:   # empty entries: NCCL's handling unconfirmed, no guess
                start = pos + (len(tok) - len(tok.lstrip()))
                head = f"{name}: '{t}' is not one of {', '.join(tokens)}"
                if strict:
                    return [Problem("invalid", f"{head}; one unknown entry makes NCCL drop the whole value "
                                    f"(it keeps {default})", "error", start, start + len(t))]
                # GCP's stock GPUDirect-TCPX environment sets NCCL_DEBUG_SUBSYS=INIT,GRAPH,ENV,TUNING,NET,VERSION:
                # harmless before 2.30.7, so info unless the pinned release rejects it
                known = [x for x in text.split(",") if x.strip().upper() in tokens]
                if name == "NCCL_DEBUG_SUBSYS" and not inverted and not known:
                    # before 2.30.7 the mask starts at 0 and only known names add bits; WARN() logs with
                    # NCCL_ALL, so an empty mask silences every message (v2.30.4-1 src/debug.cc L97, L324)
                    then = ("NCCL before 2.30.7" if lenient else "NCCL up to 2.30.4") + \
                        " is left with no subsystem and prints no message at all, its WARN lines included" + \
                        ("" if lenient else f"; from 2.30.7 NCCL drops the value (it keeps {default})")
                    return [Problem("invalid", f"{head}, nor is any entry: {then}", "warning", start, start + len(t))]
                then = ("NCCL before 2.30.7 skips it and applies the other entries" if lenient else
                        f"NCCL up to 2.30.4 skips it; from 2.30.7 one unknown entry makes NCCL drop the whole "
                        f"value (it keeps {default})")
                return [Problem("invalid", f"{head}: {then}", "info", start, start + len(t))]
            pos += len(tok) + 1
        return []
    return check_bits


def _algo_proto(name: str):
    elems = ALGOS if name == "NCCL_ALGO" else PROTOS
    what = "an algorithm" if name == "NCCL_ALGO" else "a protocol"

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
                if tok and tok.lower() not in lower_elems and version is not None and before(version, (2, 24, 3)):
                    # before 2.24.3 parseList skips a token it does not know (v2.23.4-1 src/graph/tuning.cc
                    # L34-52): the value runs, without that element
                    return [Problem("invalid", f"{name}: '{tok}' is not {what} ({', '.join(elems)}): NCCL "
                                    f"{'.'.join(map(str, version))} skips it without a word (2.24.3 and later fail "
                                    f"with ncclInvalidUsage)", "warning", at, at + max(len(tok), 1))]
                if tok and tok.lower() not in lower_elems:   # empty tokens: handling unconfirmed
                    stripped = tok.strip()
                    if stripped.lower() in lower_elems:
                        fixed = re.sub(r"\s*([,;:])\s*", r"\1", value.strip())
                        return [Problem("invalid", f"{name}={value}: '{tok}' has a space, and NCCL does not "
                                        f"trim tokens: it fails with ncclInvalidUsage "
                                        f"(\"Unrecognized element token\")", "error", at, at + len(tok),
                                        fix=fixed)]
                    msg = (f"{name}: '{tok}' is not {what} ({', '.join(elems)}): NCCL fails with "
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

    first = value.split(",", 1)[0].strip()
    if "," in value and "/" in first:
        try:
            ipaddress.ip_network(first, strict=False)
        except ValueError:
            pass
        else:  # envIbAddrRange: the address up to the first '/', the length strtol reads after it
            return [Problem("invalid", f"NCCL_IB_ADDR_RANGE={value} lists several ranges, but NCCL reads one: "
                            f"it uses {first} and the rest is never read, so NICs on the other subnets get no "
                            f"address in the range (GID index 0)", "error")]
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


def _debug_file(value: str, version) -> list[Problem]:
    """NCCL expands ``%h`` (host), ``%p`` (pid) and ``%%`` in the name and echoes any other ``%x``
    (``src/debug.cc`` L203-235), then opens the file with mode "w"."""
    odd = [m for m in re.finditer(r"%(.)", value.replace("%%", "\0\0")) if m.group(1) not in "hp"]
    if not odd:
        return []
    shown = ", ".join(dict.fromkeys(f"%{m.group(1)}" for m in odd))
    same = (": with no %p every process that logs under this name writes the same file, opened with "
            "\"w\" (each truncates what the others wrote)") if "%p" not in value.replace("%%", "") else ""
    return [Problem("misread", f"NCCL_DEBUG_FILE={value}: NCCL expands only %h (host name) and %p (process "
                    f"id); {shown} stays in the file name as written{same}", "warning",
                    odd[0].start(), odd[-1].end())]


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
    "NCCL_DEBUG_FILE": _debug_file,
}
