"""NL012: the info finding for a file in scope that netlint could read only in part. Loaders emit it
for text they could not read; the check below adds it for training jobs whose sizes stay unknown."""

from netlint.findings import Severity
from netlint.rules.base import Rule


class PartlyRead(Rule):
    """A file in netlint's scope that it could read only in part, or from which it could not build
    what the file describes (a training job, an NCCL environment, a DeepSpeed config), says so here
    instead of passing silently. The finding sits on the word that could not be resolved and says
    what is unknown and why: a value set by a file netlint cannot see (``$LAUNCHER`` from a sourced
    file outside the repo), a command's output (``$(nvidia-smi … | wc -l)``), a template placeholder
    filled at launch time. Rules that need the unknown value stay silent; everything else in the file
    is still checked. A file in a format netlint recognises but does not read (switch QoS in a vendor
    CLI configuration: Arista EOS, Cisco NX-OS) gets one at its first QoS line. "All checks passed"
    therefore means every in-scope file was read.

    Bad (info): ``$LAUNCHER --node_rank $SLURM_PROCID $CMD`` where ``LAUNCHER`` is set by a file that
    is not in the repository: world size unknown.

    Good: the launcher written in the script (``torchrun --nnodes 4 --nproc_per_node 8 …``), or the
    file that sets it checked in beside it.

    Fix: none; make the value visible to netlint, or suppress the finding on that line with a reason.

    Source: bash(1) "EXPANSION" (what a static reader can and cannot know before a run)."""

    code, name, summary = "NL012", "partly-read", "File in scope read only in part: what is unknown and why"
    severity = Severity.INFO
    tags = ("input",)
    needs = (("jobs",),)  # the check judges training jobs; the loaders report the rest themselves

    def check(self, ws):
        # Loaders say what they could not parse; a training job's sizes are judged here, after the
        # workspace joined launches, configs and hostfiles (a join may still resolve a size).
        from netlint.jobs.unread import unknown_sizes
        from netlint.models.job import training_jobs

        for job in training_jobs(ws):
            yield from unknown_sizes(job)
