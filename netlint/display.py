"""How a file is named in what netlint prints: one convention for every output a person reads.

Spans keep the path relative to the project root: per-file-ignores, baselines and fingerprints key on
it, whatever folder netlint runs from. What a person reads (text, JSON, ``netlint model``, ``netlint
path``, ``--show-files``, messages on stderr) names the file relative to the current directory when it
lies below it, else by its absolute path, as ruff does: a path that opens from where netlint ran.

Outputs read by other tools name files as those tools resolve them, relative to the repository's top
(:func:`netlint.reporters.repo_root`): SARIF (``%SRCROOT%``), GitHub annotations, and ``--diff``
headers, which is what ``git diff`` prints and ``git apply`` takes from the top or any folder below it.
When netlint runs from the repository's top, both conventions give the same paths.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path


def absolute(root: Path, file: str) -> Path:
    """The file a span path names: relative to the project root, or (a file outside the project) to
    the current directory, or absolute."""
    p = Path(file)
    if p.is_absolute():
        return p
    under_root = root / p
    if under_root.exists() or not (Path.cwd() / p).exists():
        return Path(os.path.normpath(under_root))
    return Path(os.path.normpath(Path.cwd() / p))


def shown(root: Path, file: str, cwd: Path | None = None) -> str:
    """``file`` (a span path) relative to the current directory when below it, else absolute (POSIX)."""
    path = absolute(root, file)
    here = cwd or _cwd()
    try:
        rel = path.relative_to(here).as_posix()
    except ValueError:
        try:
            rel = path.resolve().relative_to(here).as_posix()  # the root reached through a link
        except (ValueError, OSError, RuntimeError):
            return path.as_posix()
    return rel or "."


def _cwd() -> Path:
    try:
        return Path.cwd().resolve()
    except OSError:  # the current directory was removed: every path is shown absolute
        return Path("/nonexistent-cwd")


def namer(root: Path):
    """A cached :func:`shown` for one run (a report names the same files many times)."""
    here = _cwd()
    return lru_cache(maxsize=None)(lambda file: shown(root, file, here))


def shown_label(root: Path, label: str, known) -> str:
    """A label made of span paths joined by `` + `` (a DeepSpeed config and its hostfile), each part
    that is a file of ``known`` shown by the convention."""
    name = namer(root)
    return " + ".join(name(part) if part in known else part for part in label.split(" + "))


def patch_path(report, file: str) -> str:
    """A ``--diff`` header's path: relative to the repository's top, as ``git diff`` prints it (``git
    apply`` resolves it from the top, and from a folder below it by stripping that folder); outside a
    repository, the path a person reads (:func:`shown`)."""
    from netlint.reporters import repo_path, repo_root

    top = repo_root(report)
    rel = repo_path(report, file, top) if (top / ".git").exists() else None
    return rel if rel is not None else shown(report.config.root, file)
