"""ruff-style text: ``path:line:col: CODE message``, a ``fix:`` hint, related locations, a summary."""

from __future__ import annotations

from collections import Counter


def render(report, options) -> str:
    from functools import lru_cache

    from netlint.reporters import cwd_path

    from netlint.terminal import paint

    where = lru_cache(maxsize=None)(lambda file: cwd_path(report, file))
    on = bool(getattr(options, "color_enabled", False))  # decided by the command (netlint.terminal)
    lines: list[str] = []
    shown = [f for f in report.findings if not f.suppressed]
    if getattr(options, "statistics", False):  # counts per rule instead of the findings, as ruff does
        lines.extend(statistics(shown))
        lines.append(summary(report, shown))
        return "\n".join(lines) + "\n"
    for f in shown:
        level = str(f.severity)
        lines.append(f"{paint(where(f.span.file), 'path', on)}:{f.span.line}:{f.span.col}: "
                     f"{paint(f.code, 'code', on)} [{paint(level, level, on)}] {f.message}")
        for rel in f.related:
            lines.append(f"    {where(rel.span.file)}:{rel.span.line}:{rel.span.col}: {rel.message}")
        if f.fix is not None:
            tag = "" if f.fix.safe else " (unsafe)"
            lines.append(paint(f"    fix{tag}: {f.fix.description}", "dim", on))
    lines.append(summary(report, shown))
    return "\n".join(lines) + "\n"


def statistics(shown) -> list[str]:
    """One line per rule, most frequent first: count, code, ``[*]`` when some are fixable, name."""
    from netlint.rules.base import load_rules

    registry = load_rules()
    counts = Counter(f.code for f in shown)
    fixable = {f.code for f in shown if f.fix is not None}
    if not counts:
        return []
    width = max(len(c) for c in counts)
    out = []
    for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        name = registry[code].name if code in registry else ""
        mark = "[*]" if code in fixable else "   "
        out.append(f"{n:5d}  {code:<{width}}  {mark} {name}".rstrip())
    return out


def summary(report, shown) -> str:
    suppressed = sum(1 for f in report.findings if f.suppressed)
    files = f"{len(report.files)} file{'s' if len(report.files) != 1 else ''}"
    note = f"; {suppressed} suppressed" if suppressed else ""
    if not shown:
        return f"All checks passed ({files}{note})."
    by_level = Counter(str(f.severity) for f in shown)
    parts = [f"{by_level[k]} {k}{'s' if by_level[k] != 1 else ''}"
             for k in ("error", "warning", "info") if by_level[k]]
    fixable = sum(1 for f in shown if f.fix is not None and f.fix.safe)
    unsafe = sum(1 for f in shown if f.fix is not None and not f.fix.safe)
    text = f"Found {len(shown)} finding{'s' if len(shown) != 1 else ''} ({', '.join(parts)}) in {files}{note}."
    if fixable:
        text += f"\n[*] {fixable} fixable with `--fix`."
    if unsafe:
        text += f"\n{unsafe} more fixable with `--fix --unsafe-fixes`."
    return text
