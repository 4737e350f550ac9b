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
from pathlib import Path
from typing import Iterator

from pydantic import BaseModel, ConfigDict, Field

MB = 1024 * 1024


class Limits(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    max_file_mb: float = Field(
        10, gt=0, le=1024, alias="max-file-mb",
        description="Largest file read, in MiB; a larger file is not read (NL013)")
    max_depth: int = Field(
        100, ge=8, le=200, alias="max-depth",
        description="Deepest nesting of JSON, YAML or TOML containers; deeper is NL003")
    max_alias_nodes: int = Field(
        100_000, ge=0, le=10_000_000, alias="max-alias-nodes",
        description="YAML nodes a document may reach through aliases (*ref, <<: *ref); more is NL003")
    max_int_digits: int = Field(
        100, ge=20, le=4000, alias="max-int-digits",
        description="Digits of an integer literal; a longer one is NL005 (out of range) and read as text")
    policy_budget: int = Field(
        10_000_000, ge=1_000, le=10_000_000_000, alias="policy-budget",
        description="Cost units one policy may spend (nodes selected, expression tokens per node, "
                    "macro iterations, list copies, regex compilations); more is NL035 and the policy stops")

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_mb * MB)


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
    field = Limits.model_fields[name]
    return f"limits.{field.alias or name}"
