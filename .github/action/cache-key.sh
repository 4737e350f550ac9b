#!/usr/bin/env bash
# The pip cache key of action.yml: runner OS, the Python that builds the venv, and the pins.
# hashFiles() cannot be used: it only reads files inside GITHUB_WORKSPACE, and the action's
# constraints file is in the action's own checkout.
set -euo pipefail

# Python does the hashing: sha256sum is not on macOS runners.
base="${NETLINT_BASE_PYTHON:-python3}"
key="$("$base" -I -c 'import hashlib, platform, sys
pins = hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest()[:16]
print(f"{platform.python_version()}-{pins}")' "$NETLINT_SOURCE/constraints/action.txt")"
echo "key=netlint-pip-${RUNNER_OS:-unknown}-${key}" >> "$GITHUB_OUTPUT"
