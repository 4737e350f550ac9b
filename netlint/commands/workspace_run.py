"""The run behind the commands that print the joined model (`model`, `path`, `policy view`): the
workspace of the named paths, with only netlint's own findings (NL) kept."""

from __future__ import annotations

import sys
from pathlib import Path


def workspace_report(args):
    """The report of a run over ``args.paths`` (default ``.``), or None after a one-line error when a
    named path does not exist (the caller exits 2)."""
    from netlint.engine import Options, lint

    paths = args.paths or [Path(".")]
    missing = [p for p in paths if not p.exists()]
    if missing:
        sys.stderr.write(f"netlint: error: no such file or directory: {missing[0]}\n")
        return None
    return lint(Options(paths=paths, config_file=args.config, inventory=args.inventory, select=["NL"]))
