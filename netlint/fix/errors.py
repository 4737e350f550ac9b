"""What the fixer reports back: fixes applied, fixes skipped (with the reason)."""

from __future__ import annotations

from dataclasses import dataclass

from netlint.findings import Finding


def identity(f: Finding) -> tuple:
    """Which finding a fix is for, across passes: rule, file, key and message (never a position,
    which fixes move)."""
    return (f.code, f.file, f.key, f.message)


class FixError(Exception):
    """An edit that cannot be applied safely; the message says why, for the user."""


@dataclass(frozen=True)
class Applied:
    finding: Finding
    description: str
    safe: bool
    files: tuple[str, ...]


@dataclass(frozen=True)
class Skipped:
    finding: Finding
    reason: str
    # A soft skip (a conflict with an earlier fix, a fix deferred to the next pass) is reported only
    # when its finding is still there at the end; a hard one (file changed, did not parse, the bytes
    # differ from what the finding saw) always is.
    hard: bool = True

    def identity(self) -> tuple:
        return (*identity(self.finding), self.reason)

    def render(self, name=str) -> str:
        """``name`` shows the file as the report does (netlint.display)."""
        f = self.finding
        return f"{name(f.span.file)}:{f.span.line}:{f.span.col}: {f.code}: {self.reason}"
