"""The lint → fix loop: fix in memory, re-lint the fixed text, repeat until nothing changes, then write.

Nothing touches the disk until the loop has settled: every pass re-lints through an in-memory
overlay of the files fixed so far. Then each changed file is written atomically — only if the disk
still holds the bytes netlint first read. The loop is bounded like sqlfluff's (``RUNAWAY_LIMIT``
passes that change something); a run that hits the limit, or whose fixes undo each other, says so.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from netlint.fix.apply import fix_pass, fixable
from netlint.fix.errors import Applied, Skipped
from netlint.fix.files import atomic_write, encode, key, overlay, unified_diff

RUNAWAY_LIMIT = 10


@dataclass
class FileChange:
    path: str  # display path
    abspath: Path
    before: bytes
    after: bytes


@dataclass
class FixRun:
    report: object  # the final lint Report: of the fixed text when fixes were made
    applied: list[Applied] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    changes: dict[str, FileChange] = field(default_factory=dict)
    passes: int = 0
    converged: bool = True
    notes: list[str] = field(default_factory=list)  # run-level problems (runaway, write failures)
    written: list[str] = field(default_factory=list)

    def diff(self) -> str:
        return "".join(unified_diff(c.path, c.before, c.after) for _, c in sorted(self.changes.items()))

    def unsafe_remaining(self) -> int:
        return sum(1 for f in self.report.findings if fixable(f, True) and not f.fix.safe)


def _digest(files: dict[str, bytes]) -> str:
    h = hashlib.sha256()
    for k in sorted(files):
        h.update(k.encode() + b"\0" + hashlib.sha256(files[k]).digest())
    return h.hexdigest()


def run_fixes(opts, *, unsafe: bool = False, write: bool = True, report=None,
              limit: int = RUNAWAY_LIMIT) -> FixRun:
    """Lint (unless ``report`` is given), fix, re-lint, … until stable; write when ``write``.

    ``report`` lets a caller pass the lint it already has; its files are checked against the disk
    before anything is fixed, so a file edited since that lint is left alone and reported."""
    from netlint.engine import lint

    if report is None:
        report = lint(opts)
    run = FixRun(report)
    files: dict[str, bytes] = {}  # realpath -> fixed bytes (the overlay)
    first: dict[str, bytes] = {}  # realpath -> bytes before netlint changed it
    where: dict[str, tuple[str, Path]] = {}
    blocked: dict[str, str] = {}
    seen = {_digest(files)}
    hard: dict[tuple, Skipped] = {}
    soft: dict[tuple, Skipped] = {}

    def current(src) -> bytes | None:
        k = key(src.abspath)
        if k in files:
            return files[k]
        try:
            return Path(k).read_bytes()
        except OSError:
            return None

    relint = dataclasses.replace(opts, jobs=1)  # the overlay lives in this process
    while True:
        result = fix_pass(report, unsafe=unsafe, blocked=blocked, current=current)
        for s in result.skipped:
            (hard if s.hard else soft)[s.identity()] = s
        if not result.texts:
            break
        run.passes += 1
        run.applied.extend(result.applied)
        for path, text in result.texts.items():
            src = result.sources[path]
            k = key(src.abspath)
            first.setdefault(k, src.data)
            where[k] = (path, src.abspath)
            files[k] = encode(text, src.data)
        digest = _digest({k: v for k, v in files.items() if v != first[k]})
        with overlay(files):
            report = lint(relint)
        if digest in seen:
            run.converged = False
            run.notes.append("fixes undo each other; stopped (the files hold the last state reached)")
            break
        seen.add(digest)
        if run.passes >= limit:
            run.converged = False
            run.notes.append(f"still changing after {limit} passes; stopped (runaway limit)")
            break
    run.report = report
    for k, data in files.items():
        if data != first[k]:
            path, abspath = where[k]
            run.changes[path] = FileChange(path, abspath, first[k], data)

    remaining = {(f.code, f.file, f.key, f.message) for f in report.findings if fixable(f, unsafe)}
    run.skipped = list(hard.values()) + [s for s in soft.values() if s.identity()[:4] in remaining
                                         and s.identity() not in hard]
    if write:
        _write(run)
    return run


def _write(run: FixRun) -> None:
    for path, change in sorted(run.changes.items()):
        try:
            on_disk = change.abspath.read_bytes()
        except OSError as exc:
            run.notes.append(f"{path}: cannot read it back before writing ({exc.strerror}); not written")
            continue
        if on_disk != change.before:
            run.notes.append(f"{path} changed on disk while netlint was fixing it; not written")
            continue
        try:
            atomic_write(change.abspath, change.after)
        except OSError as exc:
            run.notes.append(f"{path}: cannot write ({exc.strerror or exc}); not written")
            continue
        run.written.append(path)
