"""Bounds on what netlint reads (``limits:`` in netlint.yaml, ``[tool.netlint.limits]``).

A linter that runs in CI on every pull request reads files written by anyone: each bound keeps one
hostile or broken input from crashing, hanging or exhausting the run, and says where it was hit (a
located finding) instead of reading on. The defaults are far above any real configuration.

The bounds of one run are *active* while it loads and checks files (:func:`use`): the parsers in
:mod:`netlint.parsing` and the file reader in :mod:`netlint.safe_read` consult :func:`current`, so
every caller of ``parse_yaml``/``parse_json`` gets them without passing them along. Worker
processes (``--jobs N``) receive them with each file.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """The bounds a run reads with. The defaults without pydantic (a run without a configuration file
    imports none); netlint.yaml's ``limits:`` is validated by :class:`netlint.limits_model.Limits`,
    whose fields, aliases, bounds and descriptions these mirror (a test compares them)."""

    max_file_mb: float = 10
    max_depth: int = 100
    max_alias_nodes: int = 100_000
    max_int_digits: int = 100
    policy_budget: int = 10_000_000

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_mb * MB)


# How each bound is written in netlint.yaml (netlint.limits_model.Limits's aliases).
ALIASES = {"max_file_mb": "max-file-mb", "max_depth": "max-depth", "max_alias_nodes": "max-alias-nodes",
           "max_int_digits": "max-int-digits", "policy_budget": "policy-budget"}


DEFAULT = Limits()
_active: list[tuple[Limits, Path | None]] = [(DEFAULT, None)]


def current() -> Limits:
    return _active[-1][0]


def root() -> Path | None:
    """The project root of the active run: symbolic links are followed only inside it."""
    return _active[-1][1]


@contextmanager
def use(limits: Limits | None, project_root: Path | None = None) -> Iterator[Limits]:
    """Make ``limits`` (and the project root) the active bounds for the duration of the block."""
    _active.append((limits or DEFAULT, project_root))
    try:
        yield _active[-1][0]
    finally:
        _active.pop()


def setting(name: str) -> str:
    """How a bound is written in netlint.yaml, for messages: ``limits.max-depth``."""
    return f"limits.{ALIASES.get(name, name)}"
