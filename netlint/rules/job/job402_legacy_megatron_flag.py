from __future__ import annotations

from netlint.findings import Fix, Severity, replace_span
from netlint.jobs import megatron
from netlint.rules.base import Rule
from netlint.rules.job.common import jobs, key


class LegacyMegatronFlag(Rule):
    """A legacy Megatron-LM argument that is still parsed but rejected by ``validate_args``.

    **What**: ``--model-parallel-size``, ``--batch-size``, ``--warmup``, ``--checkpoint-activations``.

    **Why**: Megatron-LM keeps these spellings only to fail with a message: "--model-parallel-size is no
    longer valid, use --tensor-model-parallel-size instead", "--batch-size argument is no longer valid,
    use --micro-batch-size instead", and ``--checkpoint-activations`` prints "no longer valid, use
    --recompute-activations …" and exits (arguments.py L591-605).

    **Bad**: ``--batch-size 4`` **Good**: ``--micro-batch-size 4``

    **Fix**: rename (safe for the two pure renames; unsafe for ``--checkpoint-activations``, whose
    replacement recomputes selectively instead of fully, and ``--warmup``, whose unit differs).

    **Source**: research/jobs.md §1b "Legacy / alias spellings" (A L591-609). Megatron-DeepSpeed still
    accepts ``--checkpoint-activations``; only Megatron-LM launches are checked.
    """

    code = "JOB402"
    name = "legacy-megatron-flag"
    severity = Severity.ERROR
    summary = "Megatron-LM stops on a legacy argument spelling"

    SAFE = {"--model-parallel-size", "--batch-size"}

    def check(self, ws):
        for job in jobs(ws, "megatron"):
            for name, (new, text) in megatron.LEGACY.items():
                a = job.args.get(name)
                if a is None:
                    continue
                span = a.flag.span
                src = ws.text(span.file)
                fix = None
                if src is not None and src[span.start:span.end] == name:
                    fix = Fix(f"rename to {new}", (replace_span(span, new, src),), safe=name in self.SAFE)
                yield self.finding(f"Megatron-LM rejects {name}: \"{text}\"", span, key=key(job, name), fix=fix)
