"""JOB423: the ``#SBATCH`` lines of a batch script that sbatch no longer reads, found in its text by the
job shell loader, which reads any script with ``#SBATCH`` lines whether or not it models a launch in it."""

from __future__ import annotations

import re

from netlint.findings import Finding, Related, Severity
from netlint.located import Span


def late_directive(text: str, file: str) -> Finding | None:
    """JOB423 at the first ``#SBATCH`` after the script's first command, or None."""
    if "#SBATCH" not in text:
        return None
    found = _late_directive(text)
    if found is None:
        return None
    (cmd_line, cmd_text), (line, col, end) = found
    late = "\n".join(ln for ln in text.splitlines()[line - 1:] if ln.lstrip().startswith("#SBATCH"))
    effect = ("the job gets the cluster's default allocation" if _SIZES.search(late) else
              "the options they give are not applied")
    return Finding("JOB423", f"#SBATCH after the first command (line {cmd_line}: `{cmd_text}`): sbatch stops reading "
                             f"directives there, so this line and any after it are comments and {effect}",
                   Span(file, line, col, line, end), Severity.WARNING, key=f"{file}:late-sbatch",
                   related=(Related(Span(file, cmd_line, 1, cmd_line, 1 + len(cmd_text)), "the first command"),))


# options that size the allocation (sbatch(1)): nodes, tasks, GPUs
_SIZES = re.compile(r"(?:--(?:nodes|ntasks|ntasks-per-node|gpus|gpus-per-node|gres|tasks-per-node)\b|\s-[Nn]\s*\d|\s-G\b)")
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")


def _late_directive(text: str) -> tuple[tuple[int, str], tuple[int, int, int]] | None:
    """((line, text) of the first command, (line, col, end col) of the first ``#SBATCH`` after it). Lines
    of a here-document (`cat > job.sbatch <<EOF` writing another batch script) are that file's, not this one's."""
    first = None
    ends: str | None = None
    for n, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if ends is not None:
            if stripped == ends:
                ends = None
            continue
        m = _HEREDOC.search(raw)
        if m and not stripped.startswith("#"):
            ends = m.group(2)
        if not stripped or stripped.startswith("#") and first is None:
            continue
        if first is None:
            first = (n, stripped[:60])
            continue
        if stripped.startswith("#SBATCH"):
            col = raw.index("#SBATCH") + 1
            return first, (n, col, col + len("#SBATCH"))
    return None
