from __future__ import annotations

from netlint.findings import Fix, Severity, replace_span
from netlint.located import Span
from netlint.rules.base import Rule
from netlint.rules.job.common import jobs, key, related


class SequenceParallelWithoutTp(Rule):
    """Sequence parallelism requested with tensor parallelism 1.

    **What**: ``--sequence-parallel`` (or NeMo ``model.sequence_parallel: true``) with TP = 1.

    **Why**: Megatron-LM silently turns it off: "Disabling sequence parallelism because tensor model
    parallelism is disabled" (arguments.py L1433-1439) — the setting does nothing, and often means the
    intended TP was lost (the llama3 example's comment says "with TP_SIZE=2"). megatron-core's
    TransformerConfig raises "Cannot use sequence parallelism without tensor parallelism" when built
    directly (model_parallel_config.py L502-504); NeMo 1.x turns it off first ("Setting sequence parallel
    to False", megatron_base_model.py L1019-1025).

    **Bad**: ``--tensor-model-parallel-size 1 --sequence-parallel`` **Good**: TP ≥ 2, or no flag

    **Fix**: remove ``--sequence-parallel`` / set ``sequence_parallel: false`` (safe: Megatron already
    ignores it).

    **Source**: NVIDIA/Megatron-LM@d98e8a64 megatron/training/arguments.py L1433-1439,
    megatron/core/model_parallel_config.py L502-504, examples/llama/train_llama3_8b_h100_fp8.sh L33, L120
    and examples/mixtral/train_mixtral_8x7b_distributed.sh L83, L87 (TP 1 with ``--sequence-parallel``);
    NVIDIA/NeMo@8cfedd7 nemo/collections/nlp/models/language_modeling/megatron_base_model.py L220,
    L1013-1025 (``_validate_and_override_config``).
    """

    code = "JOB411"
    name = "sequence-parallel-without-tp"
    severity = Severity.WARNING
    summary = "Sequence parallelism needs TP > 1"

    def check(self, ws):
        for job in jobs(ws, "megatron", "nemo"):
            if job.sequence_parallel is None or job.int("tp") != 1:
                continue
            sp = job.sequence_parallel
            span = sp.span
            text = ws.text(span.file)
            fix = None
            if text is not None and span.start >= 0:
                tok = text[span.start:span.end]
                if tok == "--sequence-parallel":
                    fix = Fix("remove --sequence-parallel", (replace_span(_word_span(span, text), "", text),), safe=True)
                elif tok in ("true", "True"):
                    fix = Fix("set sequence_parallel: false", (replace_span(span, "false", text),), safe=True)
            yield self.finding("sequence parallelism with TP=1 does nothing (Megatron disables it)", span,
                               key=key(job, "sp-tp1"), fix=fix, related=related((job.tp, "TP")))


def _word_span(span: Span, text: str) -> Span:
    """The flag with the blanks before it; its whole line when the flag is alone on a continued
    line (``  --sequence-parallel \\``), so no blank continuation line is left behind."""
    a, b = span.start, span.end
    bol = text.rfind("\n", 0, a) + 1
    eol = text.find("\n", b)
    eol = len(text) if eol < 0 else eol
    line_rest = text[b:eol].strip(" \t")
    if not text[bol:a].strip(" \t") and line_rest == "\\" and eol < len(text):
        a, b = bol, eol + 1
    else:
        while a > bol and text[a - 1] in " \t":
            a -= 1
        if a == bol:  # the flag starts the line: take the blanks after it instead
            a = span.start
            while b < eol and text[b] in " \t":
                b += 1
    line = text.count("\n", 0, a) + 1
    end_line = text.count("\n", 0, b) + 1
    col = a - (text.rfind("\n", 0, a) + 1) + 1
    end_col = b - (text.rfind("\n", 0, b) + 1) + 1
    return Span(span.file, line, col, end_line, end_col, a, b)
