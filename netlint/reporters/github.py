"""GitHub Actions workflow commands: one annotation per finding.

    ::error file=switches/leaf01/config_db.json,line=13,endLine=13,col=50,endColumn=56,title=QOS108 port-mtu-too-small::port MTU 1500 ...

``error``/``warning``/``notice`` by severity. Escaping follows actions/toolkit
``packages/core/src/command.ts`` (``escapeData``/``escapeProperty``): in the message ``%`` →
``%25``, CR → ``%0D``, LF → ``%0A`` (``%`` first, so a literal ``%0A`` stays text); in property
values (file, title) also ``:`` → ``%3A`` and ``,`` → ``%2C``. ``col``/``endColumn`` are given only
for one-line spans: GitHub ignores columns across lines. Paths are relative to the repository
(``GITHUB_WORKSPACE``), which is where GitHub looks for them.

GitHub shows at most 10 error and 10 warning annotations per step (50 per job); every finding is
still printed, in the log, and a plain summary line says so when the limit is passed. Chosen
automatically when ``GITHUB_ACTIONS=true`` and no ``--format`` is given.
"""

from __future__ import annotations

from collections import Counter

from netlint.reporters import cwd_path, repo_path, repo_root

COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}
PER_STEP = 10  # GitHub: error and warning annotations shown per step, per level


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(level: str, message: str, **props) -> str:
    """``::level k=v,...::message`` with both parts escaped; properties with None are left out."""
    body = ",".join(f"{k}={escape_property(str(v))}" for k, v in props.items() if v is not None)
    return f"::{level} {body}::{escape_data(message)}" if body else f"::{level}::{escape_data(message)}"


def _title(f, names: dict[str, str]) -> str:
    name = names.get(f.code)
    return f"{f.code} {name}" if name else f.code


def annotation(f, report, names: dict[str, str], top=None) -> str:
    s = f.span
    file = repo_path(report, s.file, top) or cwd_path(report, s.file)
    one_line = s.end_line in (0, s.line)
    parts = [f.message]
    for rel in f.related:
        where = repo_path(report, rel.span.file, top) or cwd_path(report, rel.span.file)
        parts.append(f"  {where}:{rel.span.line}:{rel.span.col}: {rel.message}")
    if f.fix is not None:
        parts.append(f"fix{'' if f.fix.safe else ' (unsafe)'}: {f.fix.description}")
    return command(COMMANDS[str(f.severity)], "\n".join(parts), file=file, line=max(s.line, 1),
                   endLine=max(s.end_line, s.line, 1),
                   col=max(s.col, 1) if one_line else None,
                   endColumn=max(s.end_col, s.col + 1, 1) if one_line else None,
                   title=_title(f, names))


def render(report, options) -> str:
    from netlint.reporters.text import statistics, summary
    from netlint.rules.base import load_rules

    names = {code: cls.name for code, cls in load_rules().items()}
    shown = [f for f in report.findings if not f.suppressed]
    top = repo_root(report)
    lines = [annotation(f, report, names, top) for f in shown]
    if getattr(options, "statistics", False) and shown:
        lines.extend(statistics(shown))
    lines.append(summary(report, shown))
    by_level = Counter(str(f.severity) for f in shown)
    over = [f"{by_level[k]} {k}s" for k in ("error", "warning") if by_level[k] > PER_STEP]
    if over:
        lines.append(f"GitHub annotates at most {PER_STEP} errors and {PER_STEP} warnings per step "
                     f"({', '.join(over)} here): every finding is in this log; upload SARIF "
                     f"(--sarif-file) to code scanning to see them all on the pull request.")
    return "\n".join(lines) + "\n"
