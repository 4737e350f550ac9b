from __future__ import annotations

import re

from netlint.findings import Related, Severity
from netlint.located import Span
from netlint.rules.base import Rule


class SbatchDirectiveAfterCommand(Rule):
    """An ``#SBATCH`` line after the script's first command, which sbatch no longer reads.

    **What**: a batch script (a launch script, or a shell file that sets NCCL variables) whose
    ``#SBATCH`` lines come after its first command (``set -euo pipefail``, ``module load …``). The
    finding is at the first such line, with the command that ended the header.

    **Why**: sbatch reads directives only up to the first line that is neither a comment nor blank;
    the rest are comments. The job then runs with the cluster's default allocation — often one node
    and one task — while the script's ``--nodes``/``--ntasks`` say otherwise, and torchrun's
    ``--nnodes "$SLURM_JOB_NUM_NODES"`` follows the default. netlint reads the header as sbatch
    does, so world sizes it models from such a script come from the default allocation.

    **Bad**: ``#!/bin/bash`` / ``set -euo pipefail`` / ``#SBATCH --nodes=32``
    **Good**: the ``#SBATCH`` lines right after the ``#!`` line, before any command

    **Fix**: none offered (move the directives up, above the first command).

    **Source**: Slurm sbatch(1), DESCRIPTION: "sbatch will stop processing further #SBATCH directives
    once the first non-comment non-whitespace line has been reached in the script"
    (https://slurm.schedmd.com/sbatch.html).
    """

    code = "JOB423"
    name = "sbatch-directive-after-command"
    severity = Severity.WARNING
    summary = "#SBATCH after the first command: sbatch ignores it"
    needs = (("jobs", "nccl_envs"),)

    def check(self, ws):
        files = {getattr(j, "file", None) for j in ws.jobs} | \
            {e.file for e in ws.nccl_envs if getattr(e, "format", None) == "shell"}
        for file in sorted(f for f in files if f):
            text = ws.text(file)
            if not text or "#SBATCH" not in text:
                continue
            found = _late_directive(text)
            if found is None:
                continue
            (cmd_line, cmd_text), (line, col, end) = found
            late = "\n".join(ln for ln in text.splitlines()[line - 1:] if ln.lstrip().startswith("#SBATCH"))
            effect = ("the job gets the cluster's default allocation" if _SIZES.search(late) else
                      "the options they give are not applied")
            yield self.finding(
                f"#SBATCH after the first command (line {cmd_line}: `{cmd_text}`): sbatch stops reading "
                f"directives there, so this line and any after it are comments and {effect}",
                Span(file, line, col, line, end),
                key=f"{file}:late-sbatch", related=(Related(Span(file, cmd_line, 1, cmd_line, 1 + len(cmd_text)),
                                                            "the first command"),))


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
