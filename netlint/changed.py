"""``netlint check --changed-since REF``: the files a branch changes, as pre-commit would pass them.

The files are those ``git diff --name-only REF...HEAD`` lists (what the branch changed since it left
REF: the merge base, as a pull request shows), plus the work tree's changes (staged, unstaged and
untracked files that .gitignore does not exclude). Deleted files are gone and left out. netlint then
runs on them as it does for pre-commit (netlint.context): their findings, and findings elsewhere that
involve them through a rule that reads them.
"""

from __future__ import annotations

import subprocess
from pathlib import Path


class ChangedError(Exception):
    """git cannot say what changed (not a repository, an unknown REF, no merge base): exit 2."""


def _git(cwd: Path, *args: str) -> str:
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, encoding="utf-8",
                              errors="surrogateescape", timeout=120)
    except FileNotFoundError:
        raise ChangedError("--changed-since needs git, which is not installed") from None
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ChangedError(f"--changed-since: git {args[0]} failed: {exc}") from None
    if proc.returncode != 0:
        why = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        raise ChangedError(f"--changed-since: git {args[0]}: {why}")
    return proc.stdout


def changed_files(ref: str, paths: list[Path]) -> list[Path]:
    """The existing files changed since ``ref`` that lie under ``paths`` (the current directory when
    none), sorted; raises :class:`ChangedError` when git cannot tell."""
    paths = paths or [Path(".")]
    first = paths[0] if paths[0].is_dir() else paths[0].parent
    start = first if first.is_dir() else Path.cwd()
    try:
        top = Path(_git(start, "rev-parse", "--show-toplevel").strip()).resolve()
    except ChangedError:
        raise ChangedError(f"--changed-since: {start.resolve()} is not in a git repository") from None
    if ref.startswith("-"):
        raise ChangedError(f"--changed-since: {ref!r} is not a git revision")
    try:
        _git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    except ChangedError:
        raise ChangedError(f"--changed-since: {ref!r} is not a commit of this repository "
                           f"(in CI, fetch it: actions/checkout with fetch-depth: 0)") from None
    names: set[str] = set()
    # Run from the top: names come relative to it whatever diff.relative says.
    names.update(_git(top, "diff", "--name-only", "-z", f"{ref}...HEAD", "--").split("\0"))
    names.update(_git(top, "diff", "--name-only", "-z", "HEAD", "--").split("\0"))
    names.update(_git(top, "ls-files", "--others", "--exclude-standard", "-z").split("\0"))
    under = [p.resolve() for p in paths]
    out = []
    for name in sorted(n for n in names if n):
        path = top / name
        if not path.is_file():  # deleted, or a submodule
            continue
        if any(path == u or u in path.parents for u in under):
            out.append(path)
    return out
