#!/usr/bin/env bash
# The "Run netlint" step of action.yml, kept here so tests run exactly what the runner runs.
#
# Inputs come as environment variables (never pasted into a script: no injection):
#   NETLINT         the netlint executable (in the action's own virtualenv)
#   NETLINT_PYTHON  that virtualenv's python, to split inputs and write the summary
#   NETLINT_PATHS   files, folders or globs; NETLINT_ARGS extra `netlint check` arguments
#   NETLINT_SARIF   optional SARIF path for code scanning
#   GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP as GitHub sets them
#
# Inputs are split like shell words by words.py (quotes, backslashes, one word per line or many,
# # comments) with no expansion of $VAR or $(...); only `paths` are globbed, by bash itself with
# globstar (** spans folders) and nullglob (a glob matching nothing adds nothing).
set -uo pipefail
if [ "${BASH_VERSINFO[0]}" -lt 4 ] || { [ "${BASH_VERSINFO[0]}" -eq 4 ] && [ "${BASH_VERSINFO[1]}" -lt 4 ]; }; then
  # globstar and mapfile -d need bash 4.4; macOS's /bin/bash is 3.2 (GitHub's images put bash 5 first)
  echo "::error title=netlint action::bash ${BASH_VERSION} is too old: the action needs bash 4.4 or newer"
  echo "exit-code=2" >> "$GITHUB_OUTPUT"
  exit 2
fi
shopt -s globstar nullglob

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tmp="$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/netlint.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

finish() {  # $1: exit code; $2: SARIF the summary counts (may not exist)
  echo "exit-code=$1" >> "$GITHUB_OUTPUT"
  echo "sarif-file=${NETLINT_SARIF:-}" >> "$GITHUB_OUTPUT"
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    "$NETLINT_PYTHON" -I "$here/summary.py" "$2" "$1" >> "$GITHUB_STEP_SUMMARY" || true
  fi
  exit "$1"
}

if ! "$NETLINT_PYTHON" -I "$here/words.py" args NETLINT_ARGS > "$tmp/args"; then
  finish 2 ""
fi
if ! "$NETLINT_PYTHON" -I "$here/words.py" paths NETLINT_PATHS > "$tmp/paths"; then
  finish 2 ""
fi
mapfile -d '' -t extra < "$tmp/args"
mapfile -d '' -t words < "$tmp/paths"

paths=()
IFS=  # below, $pattern is expanded unquoted for bash's own globbing; an empty IFS keeps it one word
for word in "${words[@]}"; do
  if [ "${word:0:1}" = G ]; then
    pattern="${word:1}"
    matches=($pattern)
    if [ "${#matches[@]}" -eq 0 ]; then
      echo "::warning title=netlint action::paths: no file matches ${pattern}"
    fi
    paths+=("${matches[@]}")
  else
    paths+=("${word:1}")
  fi
done
if [ "${#words[@]}" -gt 0 ] && [ "${#paths[@]}" -eq 0 ]; then
  # Linting the default "." instead would check what the user did not ask for.
  echo "::error title=netlint action::paths: nothing to lint (no file matches ${NETLINT_PATHS//$'\n'/ })"
  finish 2 ""
fi

sarif="${NETLINT_SARIF:-}"
if [ -z "$sarif" ]; then
  sarif="$tmp/netlint.sarif"  # only for the job summary's counts
fi

# GITHUB_ACTIONS=true makes the default output GitHub annotations.
"$NETLINT" check --sarif-file "$sarif" "${extra[@]}" -- "${paths[@]}"
code=$?
finish "$code" "$sarif"
