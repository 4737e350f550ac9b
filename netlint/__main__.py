import sys

# `python -m netlint` puts the working folder first on sys.path, so a repository being linted that holds
# a file named like a standard module (a vendored `dataclasses.py`) would be imported in its place.
# netlint itself is already imported here, from its package; nothing of the repository is code to run.
if sys.path and not sys.flags.safe_path:
    del sys.path[0]

from netlint.cli import main  # noqa: E402

raise SystemExit(main())
