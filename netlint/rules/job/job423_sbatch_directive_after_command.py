from __future__ import annotations

from netlint.findings import Severity
from netlint.rules.base import Rule


class SbatchDirectiveAfterCommand(Rule):
    """An ``#SBATCH`` line after the script's first command, which sbatch no longer reads.

    **What**: a batch script (any shell script with `#SBATCH` lines, whatever it runs) whose
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
    engine_only = True  # the job shell loader reports it (netlint.jobs.sbatch_header), for every batch script
