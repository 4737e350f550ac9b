"""Rule codes named by the user (``--select``/``--ignore``/``--extend-select``, config ``select``,
``ignore``, ``per-file-ignores``, ``severity``) must name a rule: a typo (``QOS1O1``, letter O for
zero) would otherwise select nothing and the run would pass. Each unknown code is NL008 (exit 2)
with the nearest known code.

A code is known when it is ``ALL``, a built-in rule code, a policy code of an enabled policy or pack,
or a prefix of one of those (``QOS``, ``NCCL3``), compared without case as the filters compare.
"""

from __future__ import annotations

from dataclasses import dataclass

from netlint.findings import Finding, Severity
from netlint.located import Span

# Where a command-line code is "located": no file; the CLI prints these as one-line errors.
FLAG_LINE = 0


@dataclass(frozen=True)
class Named:
    """One code as the user wrote it, and where: a flag (``--select``) or a config key's span."""

    code: str
    where: str
    span: Span | None = None


def named_codes(config, opts) -> list[Named]:
    """Every code the command line and the configuration name."""
    out: list[Named] = []
    for flag, codes in (("--select", opts.select), ("--ignore", opts.ignore),
                        ("--extend-select", getattr(opts, "extend_select", None))):
        out.extend(Named(c, flag) for c in codes or ())
    s = config.settings
    spans = getattr(config, "key_spans", {}) or {}
    shown = str(config.file) if config.file is not None else "netlint.yaml"

    def at(key: str, item: str) -> Span:  # the code itself (YAML), else its key (TOML)
        return spans.get(f"{key}:{item}") or spans.get(key.split(":")[0]) or Span(shown, 1, 1, 1, 1)

    out.extend(Named(c, "select", at("select", c)) for c in s.select)
    out.extend(Named(c, "ignore", at("ignore", c)) for c in s.ignore)
    for pattern, codes in s.per_file_ignores.items():
        out.extend(Named(c, f"per-file-ignores '{pattern}'", at(f"per-file-ignores:{pattern}", c)) for c in codes)
    out.extend(Named(c, "severity", at("severity", c)) for c in s.severity)
    return out


def check(config, opts) -> list[Finding]:
    """NL008 for each code that names no rule; the nearest known code as a did-you-mean."""
    named = [n for n in named_codes(config, opts) if n.code.strip()]
    if not named:
        return []
    from netlint.rules.base import load_rules

    builtin = tuple(load_rules())
    unknown = [n for n in named if not _known(n.code, builtin)]
    if not unknown:
        return []
    policies, problems = policy_codes(config)  # read only when a code is not built-in
    table = builtin + tuple(policies)
    out, packs = [], None
    for n in unknown:
        if _known(n.code, table):
            continue
        packs = pack_codes() if packs is None else packs
        pack = next((name for name, ids in packs.items() if _known(n.code, tuple(ids))), None)
        out.append(_finding(n, suggestion(n.code, table), pack))
    # a policy file that cannot be found explains why its codes are unknown: say so too
    return [*problems, *out] if out else []


def _known(code: str, table: tuple[str, ...]) -> bool:
    code = code.strip().upper()
    return code == "ALL" or any(k.upper().startswith(code) for k in table)


# Characters a reader (or an OCR'd runbook) takes for one another: letter O and zero, I, L and one.
_LOOKALIKE = str.maketrans({"0": "O", "1": "I", "L": "I"})


def suggestion(code: str, table: tuple[str, ...]) -> str | None:
    """The code (or family prefix, for a short code such as ``QSO``) in ``table`` the user most
    likely meant: one that differs only by look-alike characters (``QOS1O1`` → ``QOS101``; plain
    similarity ties it with ``QOS114``), else the closest by difflib's similarity."""
    from netlint.nearest import close_match

    code = code.strip().upper()
    codes = {k.upper() for k in table}
    families = {k.rstrip("0123456789") for k in codes}
    prefixes = {k[:len(code)] for k in codes if len(k) > len(code)}  # JBO4 → JOB4, not JOB435
    candidates = tuple(sorted(codes | families | prefixes))
    lookalikes = [c for c in candidates if c.translate(_LOOKALIKE) == code.translate(_LOOKALIKE)]
    if len(lookalikes) == 1:
        return lookalikes[0]
    return close_match(code, candidates, 0.6)


def _finding(n: Named, hint: str | None, pack: str | None = None) -> Finding:
    if pack is not None:  # a real code, of a pack this configuration does not enable
        tail = f": it is a rule of the built-in pack '{pack}', which is not enabled (config `policies:`)"
    else:
        tail = f"; did you mean '{hint}'?" if hint else " (see `netlint rules`)"
    if n.span is None:
        msg = f"{n.where}: unknown rule code '{n.code}'{tail}"
        span = Span(n.where, FLAG_LINE, FLAG_LINE, FLAG_LINE, FLAG_LINE)
    else:
        msg = f"unknown rule code '{n.code}' in {n.where}{tail}"
        span = n.span
    return Finding("NL008", msg, span, Severity.ERROR, key=f"unknown-code:{n.where}:{n.code}")


def pack_codes() -> dict[str, list[str]]:
    """The rule ids of each built-in pack, by pack name."""
    from netlint.policy.files import PACKS_DIR

    return {p.stem: _ids(p) for p in sorted(PACKS_DIR.glob("*.yaml"))}


def policy_codes(config) -> tuple[list[str], list[Finding]]:
    """The ids of the rules in the configured policy files and packs, and NL030 for each entry that
    names no readable policy file (it has no ids)."""
    entries = config.settings.policies
    if not entries:
        return [], []
    from netlint.policy.files import resolve

    files, problems = resolve(entries, config.root, config.file)
    return [code for path in files for code in _ids(path)], problems  # folders come listed


def _ids(path) -> list[str]:
    """The ``rules[*].id`` of one policy file; none when it cannot be read or parsed."""
    from netlint.located import ParseError, parse_yaml, plain
    from netlint.safe_read import Refused, read_bytes

    try:
        docs = parse_yaml(str(path), read_bytes(path).decode("utf-8"))
    except (Refused, ParseError, UnicodeDecodeError, OSError):
        return []
    data = plain(docs[0].root) if docs else None
    rules = data.get("rules") if isinstance(data, dict) else None
    return [r["id"] for r in (rules if isinstance(rules, list) else ())
            if isinstance(r, dict) and isinstance(r.get("id"), str)]
