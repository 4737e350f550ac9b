#!/usr/bin/env bash
# The "Install netlint" step of action.yml: netlint in a virtualenv of its own under RUNNER_TEMP,
# from the action's checkout, every package at the version constraints/action.txt pins.
#
#   NETLINT_SOURCE       the action's checkout (github.action_path)
#   NETLINT_VENV         where the virtualenv goes
#   NETLINT_BASE_PYTHON  the interpreter that creates it (setup-python's python-path, or python3)
#   PIP_CACHE_DIR        pip's cache, restored and saved by actions/cache
#
# The caller's Python is not touched: no PATH change, no package installed outside the venv.
set -euo pipefail

base="${NETLINT_BASE_PYTHON:-python3}"
constraints="$NETLINT_SOURCE/constraints/action.txt"
if ! "$base" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "::error title=netlint action::netlint needs Python 3.11 or newer; $base is $("$base" -V 2>&1). Set the python-version input."
  exit 2
fi
"$base" -m venv "$NETLINT_VENV"
py="$NETLINT_VENV/bin/python"
pip=("$py" -m pip --disable-pip-version-check --no-input --quiet)
# The build backend first, pinned, then netlint without build isolation: an isolated build would
# fetch whatever setuptools is newest that day.
"${pip[@]}" install --constraint "$constraints" setuptools wheel
# Build from a copy of what the package is made of: an in-tree build would leave build/ and
# *.egg-info in the action's checkout (reused between jobs on a self-hosted runner).
src="$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/netlint-src.XXXXXX")"
trap 'rm -rf "$src"' EXIT
cp -R "$NETLINT_SOURCE/pyproject.toml" "$NETLINT_SOURCE/README.md" "$NETLINT_SOURCE/netlint" \
  "$NETLINT_SOURCE/rules" "$src/"
"${pip[@]}" install --constraint "$constraints" --no-build-isolation "$src"
"$NETLINT_VENV/bin/netlint" --version
