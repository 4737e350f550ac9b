"""What netlint knows about a name under the cursor, from its registries: NCCL variables
(netlint/data/nccl-env.tsv), the other stacks' variables (env-*.tsv), Megatron-LM flags
(megatron-args.tsv) and SONiC CONFIG_DB QoS tables and fields (netlint/qos/sonic_catalogue.py)."""

from __future__ import annotations

import re

VALUE = re.compile(r"[A-Za-z0-9_.+\-]+\Z")


def nccl_markdown(name: str) -> str | None:
    from netlint.nccl.registry import REGISTRY_VERSION, REPLACEMENTS, registry

    var = registry().get(name)
    if var is None:
        return _stack_markdown(name)
    rows = [f"**{var.name}** — NCCL environment variable ({var.status})", "", var.meaning, "",
            f"- type: `{var.type}`", f"- values: {var.allowed}", f"- default: `{var.default}`",
            f"- since: {var.since_deprecated}", f"- category: {var.category}"]
    if name in REPLACEMENTS:
        rows.append(f"- replaced by: `{REPLACEMENTS[name][0]}`")
    rows += ["", f"_netlint's NCCL registry ({REGISTRY_VERSION}); evidence: {var.evidence}_"]
    return "\n".join(rows)


def _stack_markdown(name: str) -> str | None:
    from netlint.nccl.stacks import lookup, stacks

    var = lookup(name)
    if var is None:
        return None
    stack = stacks()[var.stack]
    title = stack.header.get("title", var.stack)
    rows = [f"**{var.name}** — {title} environment variable ({var.status})", "", var.meaning, "",
            f"- type: `{var.type}`", f"- values: {var.allowed}", f"- default: `{var.default}`"]
    if var.added not in ("", "-"):
        rows.append(f"- added: {var.added}")
    if var.removed not in ("", "-"):
        rows.append(f"- removed: {var.removed}")
    if var.replacement not in ("", "-"):
        rows.append(f"- replaced by: `{var.replacement}`")
    rows += ["", f"_{stack.header.get('version', '')}; evidence: {var.evidence}_"]
    return "\n".join(rows)


def megatron_markdown(flag: str) -> str | None:
    from netlint.jobs.megatron import options

    hits = [(provider, opt) for provider, flags in options().items() for f, opt in flags.items() if f == flag]
    if not hits:
        return None
    provider, opt = hits[0]
    kind = opt.action + ("" if opt.nargs in (0, None) else f", nargs {opt.nargs}")
    rows = [f"**{flag}** — Megatron-LM argument", "", f"- sets: `args.{opt.dest}`", f"- action: {kind}",
            f"- spellings: {', '.join(f'`{f}`' for f in opt.flags)}",
            f"- added by: {'the core parser' if provider == 'core' else provider}"]
    others = sorted({p for p, _ in hits[1:] if p != provider})
    if others:
        rows.append(f"- also in: {', '.join(others)}")
    rows += ["", "_netlint's Megatron-LM registry (netlint/data/megatron-args.tsv)_"]
    return "\n".join(rows)


def sonic_markdown(word: str) -> str | None:
    from netlint.qos.sonic_catalogue import ECN, MAP_TABLES, PORT_MAP_FIELDS, QOS_TABLES

    if word in MAP_TABLES:
        _, src_max, dst_max, src, dst = MAP_TABLES[word]
        return (f"**{word}** — SONiC CONFIG_DB map table\n\nMaps {src} (0-{src_max}) to {dst} (0-{dst_max}); "
                f"a port uses one through PORT_QOS_MAP.")
    if word in PORT_MAP_FIELDS:
        table = next(t for t, v in MAP_TABLES.items() if v[0] == PORT_MAP_FIELDS[word])
        return f"**{word}** — PORT_QOS_MAP field\n\nNames the {table} entry this port (or `global`) uses."
    if word in ("pfc_enable", "pfcwd_sw_enable"):
        return (f"**{word}** — PORT_QOS_MAP field\n\nComma-separated priorities "
                f"{'with PFC' if word == 'pfc_enable' else 'watched by the PFC watchdog'} (0-7).")
    if word == "ecn":
        return "**ecn** — WRED_PROFILE field\n\nOne of " + ", ".join(f"`{e}`" for e in ECN) + "."
    if word in QOS_TABLES:
        return f"**{word}** — SONiC CONFIG_DB QoS table read by netlint's QoS rules."
    return None


def describe(word: str) -> str | None:
    if word.startswith("--"):
        return megatron_markdown(word)
    if re.fullmatch(r"[A-Z][A-Z0-9_]*", word) and "_" in word:
        return nccl_markdown(word) or sonic_markdown(word)
    return sonic_markdown(word)


def nccl_names() -> list[tuple[str, str, bool]]:
    """(name, meaning, deprecated) of every NCCL variable a current release reads."""
    from netlint.nccl.registry import registry

    return [(v.name, v.meaning, v.status == "deprecated") for v in registry().vars.values()
            if v.status != "removed"]


def nccl_values(name: str) -> list[tuple[str, str]]:
    """(value, what it means) the registry lists for ``name``: the enumerated ones of its
    ``allowed`` column (``0|1``, ``DEFAULT|DEBUG_LOCAL``, ``0 same NIC | 1 allow cross-NIC``)."""
    from netlint.nccl.registry import registry

    var = registry().get(name)
    if var is None:
        return []
    head = re.split(r"\s*;\s*|\s+\(|\s+combinable", var.allowed, maxsplit=1)[0]
    if "|" not in head:
        return []
    out = []
    for part in head.split("|"):
        value, _, note = part.strip().partition(" ")
        value = re.sub(r"\(.*", "", value)
        if value and VALUE.match(value) and value not in {v for v, _ in out}:
            out.append((value, note.strip()))
    return out


def megatron_flags() -> list[tuple[str, str]]:
    """(flag, dest) of the core parser's flags (every Megatron-LM entry point has them)."""
    from netlint.jobs.megatron import CORE, options

    return sorted((f, o.dest) for f, o in options().get(CORE, {}).items() if f.startswith("--"))
