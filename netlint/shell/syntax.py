"""Which lines of a script bash itself rejects: ``bash -n`` (read commands, execute nothing).

tree-sitter-bash is a good reader but not bash: it stumbles on some valid scripts and accepts a few
invalid ones. When it reports an error in a script file, bash is asked (``bash -n``, which parses
without running anything, bash(1) "-n  Read commands but do not execute them"), so that netlint
calls a line a syntax error exactly where bash would stop, and says "could not read" (info) where
only netlint's reader failed. Without a bash on the machine the answer is ``None`` and tree-sitter's
view stands.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

_LINE = re.compile(r"^/dev/stdin: line (\d+): (.*)$")
_EOF = ("unexpected EOF", "unexpected end of file")
MAX_ERRORS = 40
TIMEOUT_S = 5.0


def bash_rejects(text: str) -> list[tuple[int, str]] | None:
    """The lines (1-based) bash -n rejects, each with bash's message, in file order; ``[]`` when bash
    accepts the script; ``None`` when there is no bash to ask (or it did not answer).

    bash stops at its first error, so each rejected line is blanked and bash asked again."""
    bash = shutil.which("bash")
    if bash is None or not os.path.exists("/dev/stdin"):
        return None
    lines = text.split("\n")
    out: list[tuple[int, str]] = []
    seen: set[int] = set()
    for _ in range(MAX_ERRORS):
        try:
            r = subprocess.run([bash, "--norc", "--noprofile", "-n", "/dev/stdin"],
                               input="\n".join(lines).encode("utf-8", "replace"), capture_output=True,
                               env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, timeout=TIMEOUT_S)
        except (OSError, subprocess.SubprocessError):
            return None if not out else sorted(out)
        if r.returncode == 0:
            break
        found = None
        for msg_line in r.stderr.decode("utf-8", "replace").splitlines():
            m = _LINE.match(msg_line)
            if m and not m.group(2).startswith("`"):  # bash repeats the offending line in backquotes
                found = (int(m.group(1)), m.group(2))
                break
        if found is None or found[0] in seen or not 1 <= found[0] <= len(lines):
            if found is not None and found[0] not in seen:
                out.append(found)
            break
        out.append(found)
        seen.add(found[0])
        if found[1].startswith(_EOF):
            break  # an unclosed quote or block: blanking one line does not tell where it should end
        lines[found[0] - 1] = ""
    return sorted(out)
