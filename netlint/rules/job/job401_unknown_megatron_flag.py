from __future__ import annotations

from netlint.findings import Severity
from netlint.jobs import megatron
from netlint.rules.base import Rule
from netlint.rules.job.common import jobs, key, origin


class UnknownMegatronFlag(Rule):
    """An argument Megatron-LM's parser does not define.

    **What**: a ``--flag`` passed to a Megatron-LM training script (``pretrain_gpt.py`` …) that is not
    in Megatron-LM's argument table (NVIDIA/Megatron-LM@d98e8a64, ``netlint/data/megatron-args.tsv``),
    or one removed since core_v0.15.0.

    **Why**: the parser is built with ``allow_abbrev=False`` and ``parse_args()`` (arguments.py
    L117-133): the launch dies on every rank with ``error: unrecognized arguments: --flag``, after the
    job waited in the queue. Prefixes (``--tensor-model-parallel``) are not accepted either.

    **Bad**: ``--tensor-model-parallel 8``, ``--no-async-tensor-model-parallel-allreduce``

    **Good**: ``--tensor-model-parallel-size 8``

    **Fix**: the did-you-mean spelling, when there is a close one (unsafe: a different flag may change
    the run). Megatron-DeepSpeed, NeMo and flags added by a script's ``extra_args_provider`` are not
    checked (their tables differ).

    **Source**: research/jobs.md §1a, §1b (removed flags table); Megatron-LM arguments.py.
    """

    code = "JOB401"
    name = "unknown-megatron-flag"
    severity = Severity.ERROR
    summary = "Megatron-LM rejects an argument it does not define"

    def check(self, ws):
        from netlint.findings import Edit, Fix, replace_span

        for job in jobs(ws, "megatron"):
            seen = set()
            for a in job.arg_list:
                name = a.name
                if not isinstance(name, str) or not name.startswith("--") or name in seen:
                    continue
                if megatron.is_known(name) and name not in megatron.REMOVED:
                    continue
                seen.add(name)
                why = megatron.REMOVED.get(name) or next(
                    (v for p, v in megatron.REMOVED_PREFIXES.items() if name.startswith(p)), None)
                if why:
                    msg = f"{name} was {why}; Megatron-LM now stops with 'unrecognized arguments'"
                    yield self.finding(msg, a.flag.span, key=key(job, name), related=origin(a.flag))
                    continue
                hint = megatron.suggest(name)
                msg = f"unknown Megatron-LM argument {name}: the launch stops with 'unrecognized arguments'"
                fix = None
                if hint:
                    msg += f"; did you mean {hint}?"
                    span = a.flag.span
                    text = ws.text(span.file)
                    if text is not None and text[span.start:span.end] == name:
                        fix = Fix(f"rename to {hint}", (replace_span(span, hint, text),), safe=False)
                yield self.finding(msg, a.flag.span, key=key(job, name), fix=fix, related=origin(a.flag))
