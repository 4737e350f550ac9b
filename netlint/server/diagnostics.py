"""Findings as LSP diagnostics: ranges in the client's position encoding, severity, code, the rule's
docs page when one exists, and the finding's related locations (often in another file)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Callable

from lsprotocol import types as t
from pygls.workspace.position_codec import PositionCodec

from netlint.findings import Finding, Severity
from netlint.located import Span

SEVERITY = {Severity.ERROR: t.DiagnosticSeverity.Error, Severity.WARNING: t.DiagnosticSeverity.Warning,
            Severity.INFO: t.DiagnosticSeverity.Information}
SOURCE = "netlint"


def span_range(span: Span, lines: list[str], codec: PositionCodec) -> t.Range:
    """A span (1-based lines, columns in characters, end exclusive) as a client range. Lines past the
    text (a finding at the end of a file being edited) are clamped to it."""
    def pos(line: int, col: int) -> t.Position:
        return t.Position(max(line - 1, 0), max(col - 1, 0))

    start, end = pos(span.line, span.col), pos(span.end_line, span.end_col)
    if (end.line, end.character) < (start.line, start.character):
        end = start
    return codec.range_to_client_units(lines, t.Range(start, end))


def lines_of(text: str | None) -> list[str]:
    return text.splitlines(keepends=True) if text else []


def docs_href(code: str, docs_url: str | None) -> str | None:
    """The rule's page: under the configured ``docs-url`` (where the user publishes docs/rules/),
    else the page of the checkout this netlint runs from; None when neither exists (a link to a
    page that does not exist helps no one)."""
    if docs_url:
        try:
            from netlint.rule_pages import help_uri

            return help_uri(code, docs_url)
        except ImportError:  # pragma: no cover - older tree without rule pages
            pass
    return _local_page(code)


@lru_cache(maxsize=None)
def _local_page(code: str) -> str | None:
    page = Path(__file__).resolve().parents[2] / "docs" / "rules" / f"{code}.md"
    return page.as_uri() if page.is_file() else None


def to_diagnostic(f: Finding, lines: list[str], codec: PositionCodec,
                  related_place: Callable[[Span], tuple[str, list[str]] | None],
                  docs_url: str | None = None) -> t.Diagnostic:
    """``related_place(span)`` gives (uri, lines) of the file a related location is in."""
    related = []
    for r in f.related:
        place = related_place(r.span)
        if place is None:
            continue
        uri, rlines = place
        related.append(t.DiagnosticRelatedInformation(t.Location(uri, span_range(r.span, rlines, codec)),
                                                      r.message))
    href = docs_href(f.code, docs_url)
    return t.Diagnostic(
        range=span_range(f.span, lines, codec), message=f.message, severity=SEVERITY.get(f.severity),
        code=f.code, code_description=t.CodeDescription(href=href) if href else None, source=SOURCE,
        related_information=related or None,
        data={"fix": f.fix.description if f.fix else None, "safe": f.fix.safe if f.fix else None})
