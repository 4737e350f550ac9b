"""Code actions: each finding's fix as a quick fix, every safe fix of a file at once
(``source.fixAll.netlint``), and an inline suppression of a finding's rule on its line or file.

Fixes go through the fixer's own pass (netlint/fix/apply.py), so an edit the fixer would refuse (the
text moved, the result would not parse) is offered disabled with its reason, never applied blindly.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Callable

from lsprotocol import types as t
from pygls.workspace.position_codec import PositionCodec

from netlint.findings import Finding
from netlint.server.diagnostics import lines_of, span_range

FIX_ALL = "source.fixAll.netlint"
REASON = "TODO: say why"  # netlint's directives carry a reason (require-suppression-reason)


def fixed_texts(report, findings: list[Finding], unsafe: bool) -> tuple[dict[str, str], list[str]]:
    """New text of each file the fixes of ``findings`` change, and why fixes were skipped."""
    from netlint.fix.apply import fix_pass

    ws = report.workspace
    view = SimpleNamespace(workspace=SimpleNamespace(sources=ws.sources, targets=None),
                           findings=findings)
    result = fix_pass(view, unsafe=unsafe, blocked={}, current=lambda src: src.data)
    return result.texts, [s.reason for s in result.skipped]


def text_edit(old: str, new: str, codec: PositionCodec) -> t.TextEdit:
    """The smallest single replacement turning ``old`` into ``new``."""
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end_old, end_new = len(old), len(new)
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old -= 1
        end_new -= 1
    lines = lines_of(old)
    rng = t.Range(_position(old, start), _position(old, end_old))
    return t.TextEdit(codec.range_to_client_units(lines, rng), new[start:end_new])


def _position(text: str, offset: int) -> t.Position:
    line = text.count("\n", 0, offset)
    return t.Position(line, offset - (text.rfind("\n", 0, offset) + 1))


def workspace_edit(report, texts: dict[str, str], codec: PositionCodec) -> t.WorkspaceEdit:
    root = report.config.root
    changes = {}
    for rel, new in texts.items():
        old = report.workspace.text(rel) or ""
        changes[(root / rel).as_uri()] = [text_edit(old, new, codec)]
    return t.WorkspaceEdit(changes=changes)


def fix_action(report, f: Finding, diag: t.Diagnostic, codec: PositionCodec) -> t.CodeAction:
    fix = f.fix
    title = fix.description if fix.safe else f"Unsafe fix: {fix.description}"
    texts, skipped = fixed_texts(report, [f], unsafe=not fix.safe)
    action = t.CodeAction(title=title, kind=t.CodeActionKind.QuickFix, diagnostics=[diag],
                          is_preferred=fix.safe or None)
    if texts:
        action.edit = workspace_edit(report, texts, codec)
    else:
        action.disabled = t.CodeActionDisabled(reason=skipped[0] if skipped else "nothing to change")
    return action


def fix_all_action(report, findings: list[Finding], codec: PositionCodec) -> t.CodeAction | None:
    safe = [f for f in findings if f.fix is not None and f.fix.safe and not f.suppressed]
    if not safe:
        return None
    texts, _ = fixed_texts(report, safe, unsafe=False)
    if not texts:
        return None
    return t.CodeAction(title="netlint: fix all safe fixes in file", kind=FIX_ALL,
                        edit=workspace_edit(report, texts, codec))


def suppress_actions(uri: str, rel: str, text: str, f: Finding, diag: t.Diagnostic,
                     codec: PositionCodec) -> list[t.CodeAction]:
    """``# netlint: disable=CODE -- reason`` on a line of its own above the finding's line (it covers
    the next line that is not a comment: netlint/suppress.py), and ``disable-file`` at the top.
    Not in JSON (no comments), and not on the line after a shell line continuation, where a comment
    line would cut the command in two."""
    from netlint.suppress import NO_COMMENTS

    if Path(rel).suffix.lower() in NO_COMMENTS:
        return []
    lines = lines_of(text)
    out = []
    n = f.span.line - 1
    if 0 <= n < len(lines) and not (n > 0 and lines[n - 1].rstrip("\r\n").endswith("\\")):
        line = lines[n]
        indent = line[:len(line) - len(line.lstrip(" \t"))]
        out.append(_insert_action(uri, lines, n, f"{indent}# netlint: disable={f.code} -- {REASON}",
                                  f"Suppress {f.code} on this line", diag, codec))
    top = 1 if lines and lines[0].startswith("#!") else 0
    out.append(_insert_action(uri, lines, top, f"# netlint: disable-file={f.code} -- {REASON}",
                              f"Suppress {f.code} in this file", diag, codec))
    return out


def _insert_action(uri: str, lines: list[str], line: int, directive: str, title: str, diag: t.Diagnostic,
                   codec: PositionCodec) -> t.CodeAction:
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    if line >= len(lines) and lines and not lines[-1].endswith("\n"):
        directive = newline + directive
    at = t.Position(line, 0)
    edit = t.TextEdit(codec.range_to_client_units(lines, t.Range(at, at)), directive + newline)
    return t.CodeAction(title=title, kind=t.CodeActionKind.QuickFix, diagnostics=[diag],
                        edit=t.WorkspaceEdit(changes={uri: [edit]}))


def overlapping(findings: list[tuple[Finding, t.Diagnostic]], rng: t.Range) -> list[tuple[Finding, t.Diagnostic]]:
    def before(a: t.Position, b: t.Position) -> bool:
        return (a.line, a.character) < (b.line, b.character)

    return [(f, d) for f, d in findings
            if not before(d.range.end, rng.start) and not before(rng.end, d.range.start)]


def code_actions(uri: str, linted, pairs: list[tuple[Finding, t.Diagnostic]], params: t.CodeActionParams,
                 codec: PositionCodec, text: str) -> list[t.CodeAction]:
    only = params.context.only
    wanted: Callable[[str], bool] = (lambda kind: any(kind == k or kind.startswith(k + ".") for k in only)) \
        if only else (lambda kind: True)
    out: list[t.CodeAction] = []
    if wanted(t.CodeActionKind.QuickFix):
        here = overlapping(pairs, params.range)
        for f, d in here:
            if f.fix is not None and f.fix.edits and not f.suppressed:
                out.append(fix_action(linted.report, f, d, codec))
        for f, d in here:
            out.extend(suppress_actions(uri, linted.rel, text, f, d, codec))
    if wanted(FIX_ALL):
        action = fix_all_action(linted.report, [f for f, _ in pairs], codec)
        if action is not None:
            out.append(action)
    return out
