"""``--fix`` over a copy of all of ``examples/``: the second run must change nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

from netlint.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_fix_twice_changes_nothing_the_second_time(tmp_path, capsys):
    repo = tmp_path / "examples"
    shutil.copytree(EXAMPLES, repo, ignore=shutil.ignore_patterns(".netlint_cache"))
    original = snapshot(repo)
    main(["check", "--fix", "--unsafe-fixes", "--jobs", "1", str(repo)])
    first = capsys.readouterr().out
    assert "applied" in first.splitlines()[-1]
    once = snapshot(repo)
    assert set(once) == set(original), "fixing must not create or delete files"
    main(["check", "--fix", "--unsafe-fixes", "--jobs", "1", str(repo)])
    second = capsys.readouterr().out
    assert snapshot(repo) == once
    assert second.splitlines()[-1].startswith("0 fixes applied"), second


def test_diff_on_examples_writes_nothing(tmp_path, capsys):
    import os

    repo = tmp_path / "examples"
    shutil.copytree(EXAMPLES, repo, ignore=shutil.ignore_patterns(".netlint_cache"))
    stats = {p: (p.read_bytes(), os.stat(p).st_mtime_ns) for p in repo.rglob("*") if p.is_file()}
    main(["check", "--diff", "--unsafe-fixes", "--jobs", "1", str(repo)])
    capsys.readouterr()
    assert {p: (p.read_bytes(), os.stat(p).st_mtime_ns) for p in repo.rglob("*") if p.is_file()} == stats
