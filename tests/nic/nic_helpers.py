"""Helpers for the NIC tests: load one fixture with the engine, and find a token's position in it."""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def load(path: Path, rel: str | None = None):
    """(models of kind nics, findings, formats) of one file, read as the engine reads a named file."""
    from netlint.discovery import Candidate
    from netlint.engine import load_file

    res = load_file(Candidate(path.resolve(), rel or path.name, True))
    return [m for k, m in res.models if k == "nics"], res.findings, res.formats


def where(path: Path, needle: str, token: str, nth: int = 0) -> tuple[int, int]:
    """(line, column) of ``token`` on the ``nth`` line of ``path`` that contains ``needle``, both
    1-based: the position a located value must have, computed from the file itself."""
    hits = [(i, line) for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line]
    i, line = hits[nth]
    start = line.index(needle)
    return i, line.index(token, start) + 1 if token in line[start:] else line.index(token) + 1


def pos(value) -> tuple[int, int]:
    return value.span.line, value.span.col
