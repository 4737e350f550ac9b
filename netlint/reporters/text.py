"""ruff-style text: ``path:line:col: CODE message``, a ``fix:`` hint, related locations, a summary."""

from __future__ import annotations

from collections import Counter


def render(report, options) -> str:
    lines: list[str] = []
    shown = [f for f in report.findings if not f.suppressed]
    for f in shown:
        lines.append(f"{f.span.file}:{f.span.line}:{f.span.col}: {f.code} [{f.severity}] {f.message}")
        for rel in f.related:
            lines.append(f"    {rel.span.file}:{rel.span.line}:{rel.span.col}: {rel.message}")
        if f.fix is not None:
            tag = "" if f.fix.safe else " (unsafe)"
            lines.append(f"    fix{tag}: {f.fix.description}")
    if getattr(options, "statistics", False) and shown:
        lines.append("")
        for code, n in sorted(Counter(f.code for f in shown).items()):
            lines.append(f"{n:5d}  {code}")
    lines.append(summary(report, shown))
    return "\n".join(lines) + "\n"


def summary(report, shown) -> str:
    if not shown:
        return f"All checks passed ({len(report.files)} files)."
    by_level = Counter(str(f.severity) for f in shown)
    parts = [f"{by_level[k]} {k}{'s' if by_level[k] != 1 else ''}"
             for k in ("error", "warning", "info") if by_level[k]]
    fixable = sum(1 for f in shown if f.fix is not None and f.fix.safe)
    unsafe = sum(1 for f in shown if f.fix is not None and not f.fix.safe)
    text = f"Found {len(shown)} finding{'s' if len(shown) != 1 else ''} ({', '.join(parts)}) in {len(report.files)} files."
    if fixable:
        text += f"\n[*] {fixable} fixable with `--fix`."
    if unsafe:
        text += f"\n{unsafe} more fixable with `--fix --unsafe-fixes`."
    return text
