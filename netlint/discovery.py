"""Walk the paths the user gave and list the files worth offering to loaders.

Directories skip version control, virtualenvs, caches and hidden folders silently. Which files
are *understood* is decided later by content (loaders' ``claims``); here only the cheap name test.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from netlint.config import Config

SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".tox", ".nox", ".venv", "venv",
             ".mypy_cache", ".pytest_cache", ".ruff_cache", ".eggs", "site-packages"}


@dataclass(frozen=True)
class Candidate:
    abspath: Path
    rel: str          # display path, relative to the project root when inside it
    explicit: bool    # named on the command line (or by the inventory), not found by walking


def display_path(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return os.path.relpath(path.resolve(), Path.cwd()).replace(os.sep, "/") \
            if _same_drive(path) else path.as_posix()


def _same_drive(path: Path) -> bool:
    return os.path.splitdrive(str(path.resolve()))[0] == os.path.splitdrive(str(Path.cwd()))[0]


def discover(paths: list[Path], config: Config, wanted,
             skipped: list[tuple[str, str]] | None = None) -> list[Candidate]:
    """Files under ``paths``; ``wanted(name, suffix)`` says whether any loader may read a name.
    ``skipped`` collects the walked files left out, with why (``--show-files``)."""
    seen: set[Path] = set()
    out: list[Candidate] = []
    for path in paths:
        if path.is_dir():
            for abspath in _walk(path):
                rel = display_path(abspath, config.root)
                if abspath in seen:
                    continue
                if config.is_excluded(rel) or not config.is_included(rel):
                    if skipped is not None:
                        skipped.append((rel, "excluded by the configuration (include/exclude)"))
                    continue
                if wanted(abspath.name, abspath.suffix.lower()):
                    seen.add(abspath)
                    out.append(Candidate(abspath, rel, False))
                elif skipped is not None:
                    seen.add(abspath)
                    skipped.append((rel, f"no netlint format reads {kind_of_name(abspath)}"))
        else:
            abspath = path.resolve() if path.exists() else path.absolute()
            if abspath not in seen:
                seen.add(abspath)
                out.append(Candidate(abspath, display_path(abspath, config.root), True))
    return out


def kind_of_name(path: Path) -> str:
    return f"*{path.suffix} files" if path.suffix else f"files named '{path.name}'"


def _walk(top: Path):
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if not _skip_dir(Path(dirpath) / d, d))
        for name in sorted(filenames):
            yield (Path(dirpath) / name).resolve()


def _skip_dir(path: Path, name: str) -> bool:
    if name in SKIP_DIRS or (name.startswith(".") and name not in (".github",)):
        return True
    return (path / "pyvenv.cfg").exists()  # any virtualenv, whatever its name
