"""The ``check`` command's side of fixing: ``--fix``, ``--unsafe-fixes``, ``--diff``, ``--fix-only``."""

from __future__ import annotations

import sys


def wanted(args) -> bool:
    return bool(getattr(args, "fix", False) or getattr(args, "fix_only", False) or getattr(args, "diff", False))


def apply_fixes(opts, report, args):
    """Run the lint → fix loop from ``report``; print what was skipped (stderr); return the FixRun."""
    from netlint.fix import run_fixes

    run = run_fixes(opts, unsafe=bool(args.unsafe_fixes), write=not args.diff, report=report)
    if not args.quiet:
        for s in run.skipped:
            sys.stderr.write(f"netlint: fix not applied: {s.render()}\n")
        for note in run.notes:
            sys.stderr.write(f"netlint: {note}\n")
    return run


def summary(run, args) -> str:
    """``N fixes applied; M more with --unsafe-fixes.``"""
    n = len(run.applied)
    verb = "would be applied" if args.diff else "applied"
    text = f"{n} fix{'es' if n != 1 else ''} {verb}"
    more = 0 if args.unsafe_fixes else run.unsafe_remaining()
    if more:
        text += f"; {more} more with --unsafe-fixes"
    return text + "."


def exit_code(run, args, code: int) -> int:
    """``--diff``: 1 when there is something to change. ``--fix-only``: 0 unless the fixer could
    not do what it should (a file not written). ``--fix``: the remaining findings decide."""
    failed = any("not written" in n for n in run.notes)
    if args.diff:
        return 2 if run.report.internal_error else (1 if run.changes else 0)
    if args.fix_only:
        return 2 if run.report.internal_error else (1 if failed else 0)
    return max(code, 1) if failed and not args.exit_zero else code
