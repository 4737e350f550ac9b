"""The policies a config enables, with its ``policy-params`` applied, and which findings of theirs
another rule already reports (``duplicates``).

``policy-params`` keys are an entry of ``policies:`` as written (a pack name, a file or folder: every
policy of it that declares the param) or a policy id (that policy; it wins over its entry). A key
that names neither, a param no policy there declares, or a value of another type than the default
(a string for a number) is NL030 at the config, and that override is not applied.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from netlint.findings import Finding
from netlint.located import Span


def configured_policies(config, shown: Callable[[Path], str]) -> tuple[list, list[Finding]]:
    """The compiled policies of ``config``'s ``policies`` (unique ids, in load order) and every
    problem with them or with ``policy-params``."""
    from netlint.policy.files import load, resolve, unique

    entries = config.settings.policies
    overrides = config.settings.policy_params
    files, findings = resolve(entries, config.root, config.file)
    entry_of: dict[Path, str] = {}
    for entry in entries:
        for path in resolve([entry], config.root, config.file)[0]:
            entry_of.setdefault(path.resolve(), entry)
    problems: list[Finding] = []
    used: dict[str, set] = {}  # override key -> the params a loaded policy declared

    def params_for(path: Path) -> Callable:
        entry = entry_of.get(path)

        def override(policy) -> dict:
            declared = policy.parameters
            out = {}
            for key in (entry, policy.id.value):
                for name, value in (overrides.get(key) or {}).items() if key is not None else ():
                    if name not in declared:
                        continue
                    used.setdefault(key, set()).add(name)
                    wrong = _type_clash(declared[name], value)
                    if wrong:
                        problems.append(_problem(config, f"policy-params.{key}.{name}: {wrong} (the default "
                                                 f"of {policy.id.value} is {declared[name]!r}); not applied",
                                                 key, name))
                    else:
                        out[name] = value
            return out
        return override

    compiled = []
    for path in dict.fromkeys(p.resolve() for p in files):  # a file named twice loads once
        got, found = load(path, shown(path), params_for(path))
        compiled.extend(got)
        findings.extend(found)
    compiled, found = unique(compiled)
    findings.extend(found)
    findings.extend(problems)
    findings.extend(_unused(config, overrides, used, entries, compiled))
    return compiled, findings


def _type_clash(default, value) -> str:
    def kind(v) -> str:
        if isinstance(v, bool):
            return "a boolean"
        if isinstance(v, (int, float)):
            return "a number"
        if isinstance(v, str):
            return "a string"
        if isinstance(v, list):
            return "a list"
        if isinstance(v, dict):
            return "a mapping"
        return "null"
    if default is None or kind(default) == kind(value):
        return ""
    return f"{value!r} is {kind(value)}, not {kind(default)}"


def _unused(config, overrides: dict, used: dict, entries: list, compiled: list) -> list[Finding]:
    """NL030 for an override key that names no entry nor loaded policy, or a param nothing declares."""
    from netlint.nearest import close_match

    ids = {p.code: p for p in compiled}
    out = []
    for key, params in overrides.items():
        if key not in entries and key not in ids:
            table = tuple(sorted({*entries, *ids}))
            close = close_match(key, table, 0.6)
            hint = f"; did you mean '{close}'?" if close else f" (entries and ids: {', '.join(table[:12]) or 'none'})"
            out.append(_problem(config, f"policy-params: '{key}' is neither an entry of `policies` nor the id of "
                                f"a policy they load{hint}", key))
            continue
        declared = sorted(ids[key].policy.parameters) if key in ids else \
            sorted({n for p in compiled for n in p.policy.parameters})
        for name in params or {}:
            if name in used.get(key, set()):
                continue
            close = close_match(name, tuple(declared), 0.6)
            hint = f"; did you mean '{close}'?" if close else f" (declared: {', '.join(declared) or 'none'})"
            out.append(_problem(config, f"policy-params.{key}: no policy of '{key}' declares the param "
                                f"'{name}'{hint}", key, name))
    return out


def _problem(config, message: str, *names: str) -> Finding:
    return Finding("NL030", message, _span(config, names), key=f"policy-params:{'.'.join(names)}:{message[:40]}")


def _span(config, names: tuple) -> Span:
    """Where the last of ``names`` is written after ``policy-params`` in the config file."""
    import re

    file = config.file
    if file is None:
        return Span(".", 1, 1, 1, 1)
    from netlint.discovery import display_path

    shown = display_path(file, config.root)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return Span(shown, 1, 1, 1, 1)
    key = re.search(r"[\"']?policy-params[\"']?", text)
    pos, found = key.end() if key else 0, None
    for name in names:
        m = re.compile(r"(?<![\w./-])" + re.escape(name) + r"(?![\w./-])").search(text, pos)
        if m is None:
            break
        found, pos = m, m.end()
    if found is None:
        return Span(shown, key and text.count("\n", 0, key.start()) + 1 or 1, 1, 1, 1)
    line = text.count("\n", 0, found.start()) + 1
    col = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
    return Span(shown, line, col, line, col + len(found.group()), found.start(), found.end())


def duplicated(compiled: list) -> tuple[list, list[Finding]]:
    """Each policy's effective ``duplicates``: the built-in rules it names, and the policies it names
    that were loaded before it (so of two packs naming each other the first one loaded reports). A
    code in a built-in family that no built-in rule has is NL033 (a typo would report twice)."""
    from netlint.nearest import close_match
    from netlint.policy.files import BUILTIN_FAMILIES
    from netlint.rules.base import load_rules

    registry = load_rules()
    seen: set[str] = set()
    problems = []
    for policy in compiled:
        keep = []
        for ref in policy.policy.duplicated:
            code = str(ref.value)
            if code in registry or code in seen:
                keep.append(code)
            elif any(code.startswith(f) and code[len(f):][:1].isdigit() for f in BUILTIN_FAMILIES):
                close = close_match(code, tuple(sorted(registry)), 0.6)
                hint = f"; did you mean '{close}'?" if close else ""
                problems.append(Finding("NL033", f"{policy.code}: duplicates: netlint has no rule {code}{hint}",
                                        ref.span, key=f"{policy.code}:duplicates:{code}"))
        policy.duplicates = keep
        seen.add(policy.code)
    return compiled, problems
