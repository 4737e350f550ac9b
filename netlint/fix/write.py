"""Writing the fixed files, and saying exactly which ones were written.

A changed file is written only when all of these hold (otherwise it is left as it is and listed,
with the reason, in ``FixRun.unwritten``):

- **inside the project**: its real path (symlinks resolved) is below the project root, or it is a
  file named on the command line by its real path. A symlink inside the project is followed: its
  target is replaced and the link itself is kept. A symlink (or a symlinked folder) that leads
  outside the project is refused: netlint never rewrites a file outside the project.
- **a regular file with a single name**: a file with several hard links is refused. netlint writes
  a new file and renames it over the old one (so nobody ever sees half a file); with hard links
  that would silently split them (the other names would keep the old text), and writing in place
  instead could leave half a file behind on a full disk or a crash.
- **writable**: a read-only file (no write permission bit) is not replaced, even where the folder
  would allow it, nor when running as root.
- **unchanged on disk** since netlint read it, and **verified**: the new text still reads as its
  format (:mod:`netlint.fix.verify`).

Fixes that edit several files are all or nothing here too: when one of their files cannot be
written, the others are not written either (or, when a write fails midway, put back as they were).
The replaced file keeps its permission bits and, when allowed, its owner.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from netlint.fix.files import atomic_write


def named_files(paths) -> set[str]:
    """Files named on the command line by their real path (no symlink on the way): the user's own
    choice, writable even outside the project root."""
    out = set()
    for p in paths:
        p = Path(p)
        if p.is_file() and os.path.realpath(p) == os.path.abspath(p):
            out.add(os.path.realpath(p))
    return out


def groups(applied, paths) -> dict[str, set[str]]:
    """For each changed file, every changed file a fix ties it to (transitively)."""
    linked: dict[str, set[str]] = {p: {p} for p in paths}
    for a in applied:
        files = [f for f in a.files if f in linked]
        merged = set().union(*(linked[f] for f in files)) if files else set()
        for f in merged:
            linked[f] = merged
    return linked


def write_changes(run, root: Path, named: set[str]) -> None:
    """Write ``run.changes``; fill ``run.written`` and ``run.unwritten`` (display path -> why)."""
    linked = groups(run.applied, run.changes)
    targets: dict[str, Path] = {}
    for path, change in sorted(run.changes.items()):
        if path in run.unwritten:
            continue
        target, why = _target(change.abspath, root, named)
        if why is None:
            why = _still(change, target)
        if why is None:
            from netlint.fix.verify import refusal

            why = refusal(path, change.abspath, change.before, change.after)
        if why is not None:
            run.unwritten[path] = why
        else:
            targets[path] = target
    _spread(run, linked)
    for path in sorted(targets):
        if path in run.unwritten:
            continue
        try:
            atomic_write(targets[path], run.changes[path].after)
        except OSError as exc:
            run.unwritten[path] = f"cannot write it ({_reason(exc)})"
            _roll_back(run, linked[path] - {path}, targets, path)
            _spread(run, linked)
            continue
        run.written.append(path)


def _target(abspath: Path, root: Path, named: set[str]) -> tuple[Path | None, str | None]:
    real = Path(os.path.realpath(abspath))
    top = Path(os.path.realpath(root))
    if real != top and top not in real.parents and str(real) not in named:
        return None, (f"it resolves to {real}, outside the project root {top}; netlint never rewrites a file "
                      f"outside the project")
    try:
        st = os.lstat(real)
    except OSError as exc:
        return None, f"cannot look at it ({_reason(exc)})"
    if not stat.S_ISREG(st.st_mode):
        return None, "it is not a regular file"
    if st.st_nlink > 1:
        return None, (f"it has {st.st_nlink} hard links; netlint replaces a file by renaming a new one over it, "
                      f"which would leave the other links with the old text (apply the change by hand, "
                      f"or see it with --diff)")
    if not st.st_mode & 0o222:
        return None, f"it is read-only (mode {stat.S_IMODE(st.st_mode):04o})"
    return real, None


def _still(change, target: Path) -> str | None:
    try:
        on_disk = target.read_bytes()
    except OSError as exc:
        return f"cannot read it back before writing ({_reason(exc)})"
    if on_disk != change.before:
        return "it changed on disk while netlint was fixing it"
    return None


def _spread(run, linked: dict[str, set[str]]) -> None:
    """A file left unwritten holds back the files its fixes also edit."""
    for path, why in list(run.unwritten.items()):
        for other in sorted(linked.get(path, ()) - {path}):
            if other not in run.unwritten and other not in run.written:
                run.unwritten[other] = f"a fix that edits it also edits {path}, which is not written"


def _roll_back(run, others: set[str], targets: dict[str, Path], failed: str) -> None:
    """Put back the files of ``failed``'s fixes that were already written."""
    for other in sorted(others):
        if other not in run.written:
            continue
        try:
            atomic_write(targets[other], run.changes[other].before)
        except OSError as exc:  # it stays written (and counted so); say that the fix is half done
            run.notes.append(f"{other}: written, but could not be put back ({_reason(exc)}) after {failed}, "
                             f"which the same fix edits, could not be written")
            continue
        run.written.remove(other)
        run.unwritten[other] = f"put back as it was: {failed}, which the same fix edits, could not be written"


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__
