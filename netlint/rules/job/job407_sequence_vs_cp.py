from __future__ import annotations

from netlint.findings import Severity
from netlint.rules.base import Rule
from netlint.rules.job.common import jobs, key, related


class SequenceShape(Rule):
    """Sequence length incompatible with context parallelism or the position embeddings.

    **What**: with CP > 1, ``seq_length % (2·CP) != 0``; or ``max_position_embeddings < seq_length``.

    **Why**: "seq-length should be a multiple of 2 * context-parallel-size if context-parallel-size > 1."
    (arguments.py L1335-1338: each CP rank takes two chunks for load balance) and "max_position_embeddings
    (…) must be greater than or equal to seq_length (…)." (L1353-1358). The job stops at start-up.

    **Bad**: ``--seq-length 8190 --context-parallel-size 2`` **Good**: 8192

    **Source**: NVIDIA/Megatron-LM@d98e8a64 megatron/training/arguments.py L1335-1338, L1353-1358.
    """

    code = "JOB407"
    name = "sequence-shape"
    severity = Severity.ERROR
    summary = "Sequence length must be a multiple of 2 x CP and fit the position embeddings"

    def check(self, ws):
        for job in jobs(ws, "megatron", "nemo"):
            s, cp, mp = job.int("seq_len"), job.int("cp"), job.int("max_position")
            if s is None:
                continue
            if cp and cp > 1 and s % (2 * cp):
                yield self.finding(f"sequence length {s} is not a multiple of 2×CP = {2 * cp}", job.span_of("seq_len"),
                                   key=key(job, "seq-cp"), related=related((job.cp, "CP")))
            if mp is not None and mp < s:
                yield self.finding(f"max_position_embeddings {mp} is smaller than the sequence length {s}",
                                   job.span_of("max_position"), key=key(job, "maxpos"))
