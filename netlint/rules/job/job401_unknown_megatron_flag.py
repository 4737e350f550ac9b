from __future__ import annotations

from netlint.findings import Severity
from netlint.jobs import megatron
from netlint.rules.base import Rule
from netlint.rules.job.common import jobs, key, origin


class UnknownMegatronFlag(Rule):
    """An argument the parser of the Megatron-LM script being launched does not define.

    **What**: a ``--flag`` passed to a Megatron-LM entry point that neither Megatron-LM's core parser
    nor that script's ``extra_args_provider`` defines (NVIDIA/Megatron-LM@d98e8a64: the core parser of
    ``megatron/training/arguments.py`` for every script; ``examples/multimodal/train.py`` adds
    ``examples/multimodal/multimodal_args.py``; ``pretrain_vlm.py`` adds ``add_vlm_extra_args``; …), or
    one removed since core_v0.15.0. A flag that only an optional provider adds is a warning naming
    what must be installed: ``pretrain_gpt.py`` and ``pretrain_hybrid.py`` add modelopt's arguments
    only when ``nvidia-modelopt`` imports (pretrain_gpt.py L82-90, L525-527), and the core adds
    ``--kitchen-*`` only with NVIDIA's Kitchen extension, which is not public (arguments.py
    L3741-3769; ``megatron/core/extensions/kitchen.py`` sets ``HAVE_KITCHEN = False``). A flag removed
    since core_v0.15.0 is info: releases up to core_v0.15.0, and forks of them (ROCm/Megatron-LM
    keeps ``--no-async-tensor-model-parallel-allreduce`` as "DEPRECATED. This flag is ignored."), still
    take it, and netlint cannot see which one the job runs.

    **Why**: the parser is built with ``allow_abbrev=False`` and read with ``parse_args()``
    (arguments.py L117-133): the launch dies on every rank with ``error: unrecognized arguments:
    --flag``, after the job waited in the queue. Prefixes (``--tensor-model-parallel``) are not
    accepted either.

    **Bad**: ``torchrun … pretrain_gpt.py --tensor-model-parallel 8``; ``pretrain_gpt.py
    --vision-model-type internvit`` (a flag of ``examples/multimodal/train.py``)

    **Good**: ``pretrain_gpt.py --tensor-model-parallel-size 8``; ``examples/multimodal/train.py
    --vision-model-type internvit``

    **Fix**: the did-you-mean spelling among the script's own flags, when the flag reads as a slip of
    it — a letter or two away, the flag cut short at a dash, or its words in another order (unsafe: a
    different flag may change the run). Not a slip: one of a family of flags the launch names
    (``--optimizer dion --dion-momentum 0.95 --dion-beta1 0.9``: krafton-ai/Megatron-Dion defines them),
    or a flag whose one differing word is half changed (``--dion-momentum`` vs ``--muon-momentum``). A flag that is no slip of a known one may be defined by a fork
    (bigcode-project/Megatron-LM@7c325cd3 ``megatron/arguments.py`` adds ``--attention-head-type``,
    ``--tokenizer-file``) or by another release, and netlint cannot see which Megatron-LM the job runs:
    those are listed once per job, as info, with no rename. None for a flag that another entry point's
    provider defines (the script, not the flag, may be what is wrong). A script netlint does not know
    (a custom ``train.py``, an old fork's ``pretrain_gpt2.py``) may add any flag through its own
    ``extra_args_provider``: its flags outside the core parser are listed once, as info, and no
    rename is offered. A fork kept in the repository (a ``megatron/`` package beside the launched
    script) is read: a flag its argument files or the script define is not reported. Megatron-DeepSpeed
    and NeMo jobs are not checked (their parsers differ).

    **Source**: NVIDIA/Megatron-LM@d98e8a64 ``megatron/training/arguments.py`` L88-133 (``parse_args``,
    ``extra_args_provider``), ``pretrain_gpt.py`` L82-90 and L525-527, ``examples/multimodal/train.py``
    L387-390, ``examples/multimodal/multimodal_args.py``; the tables in
    ``netlint/data/megatron-args.tsv`` and ``megatron-entries.tsv`` (``tools/extract_megatron_args.py``).
    """

    code = "JOB401"
    name = "unknown-megatron-flag"
    severity = Severity.ERROR
    summary = "Megatron-LM rejects an argument it does not define"

    def check(self, ws):
        # launches of one script that differ by branch (`if [ $FP = te ]; then torchrun … --fp8-hybrid`)
        # share most of their flags: one info per script and entry point names them all
        unexplained_by: dict[tuple, tuple] = {}
        for job in jobs(ws, "megatron"):
            entry = megatron.entry_of(job.entry)
            if entry is None:
                yield from self._unknown_entry(ws, job)
                continue
            parser = megatron.parser_of(entry)
            families = _families(job, parser)
            seen, unexplained = set(), []
            for a in job.arg_list:
                name = a.name
                if not isinstance(name, str) or not name.startswith("--") or name in seen:
                    continue
                seen.add(name)
                if job.vendored is not None and name in job.vendored.flags:
                    continue  # defined by the repository's own Megatron-LM fork, which the job runs
                if name in parser:
                    needs = parser[name][1]
                    if needs:
                        yield self._optional(job, a, entry, parser[name][0], needs)
                    continue
                if entry.strict:
                    found = self._unknown(ws, job, a, entry, parser, families)
                    if found is None:
                        unexplained.append(a)
                    else:
                        yield found
            if unexplained:
                _, _, flags = unexplained_by.setdefault((job.file, entry.path), (job, entry, {}))
                for a in unexplained:
                    flags.setdefault(a.name, []).append(a)
        for job, entry, flags in unexplained_by.values():
            yield self._unexplained(job, entry, flags)

    def _optional(self, job, a, entry, opt, needs):
        msg = (f"{a.name} exists only when {needs} is installed: {entry.path} adds it through "
               f"{opt.provider} only then; without it the launch stops with 'unrecognized arguments'")
        return self.finding(msg, a.flag.span, key=key(job, a.name), severity=Severity.WARNING,
                            related=origin(a.flag))

    def _unknown(self, ws, job, a, entry, parser, families=frozenset()):
        from netlint.findings import Fix, replace_span

        name = a.name
        why = megatron.REMOVED.get(name) or next(
            (v for p, v in megatron.REMOVED_PREFIXES.items() if name.startswith(p)), None)
        if why:  # fatal on a current Megatron-LM only: a release or fork before the removal takes it
            msg = (f"{name} was {why}; a Megatron-LM from after that stops with 'unrecognized arguments' "
                   f"(earlier releases and forks of them accept it)")
            return self.finding(msg, a.flag.span, key=key(job, name), related=origin(a.flag),
                                severity=Severity.INFO)
        msg = f"{entry.path} does not define {name}: the launch stops with 'unrecognized arguments'"
        elsewhere = sorted({e for p in megatron.providers_of(name) for e in megatron.entries_with(p)},
                           key=lambda p: (p.count("/"), p))
        if elsewhere:
            # the flag is right for another script: renaming it would hide a wrong entry point
            shown = ", ".join(elsewhere[:3]) + (", …" if len(elsewhere) > 3 else "")
            msg += f" (it is an argument of {shown})"
            return self.finding(msg, a.flag.span, key=key(job, name), related=origin(a.flag))
        if _first_word(name) in families:
            return None  # one of a family of flags the launch names (`--optimizer dion --dion-…`): a fork's
        hint = megatron.suggest(name, [f for f, (_, needs) in parser.items() if f.startswith("--")])
        if hint is None or not megatron.is_misspelling(name, hint):
            return None  # no slip of a known flag: a fork's or another release's own (_unexplained)
        msg += f"; did you mean {hint}?"
        fix = None
        span = a.flag.span
        text = ws.text(span.file)
        if text is not None and text[span.start:span.end] == name:
            fix = Fix(f"rename to {hint}", (replace_span(span, hint, text),), safe=False)
        return self.finding(msg, a.flag.span, key=key(job, name), fix=fix, related=origin(a.flag))

    def _unexplained(self, job, entry, flags: dict):
        """Flags (name → its uses in the script's launches) that are no slip of a known one: a fork (bigcode-project/Megatron-LM adds
        ``--attention-head-type``) or another release may define them, and netlint cannot see which
        Megatron-LM the job runs: one info, no rename."""
        from netlint.findings import Related

        names = ", ".join(list(flags)[:6]) + (f" and {len(flags) - 6} more" if len(flags) > 6 else "")
        msg = (f"{entry.path} of Megatron-LM@{megatron.COMMIT} does not define {names}: unless the job runs "
               f"a fork or a release that does, the launch stops with 'unrecognized arguments'")
        first = next(iter(flags.values()))[0]
        seen = {first.flag.span}
        related = []
        for name, uses in flags.items():
            for a in uses:
                if a.flag.span.line > 0 and a.flag.span not in seen:
                    seen.add(a.flag.span)
                    related.append(Related(a.flag.span, name))
        return self.finding(msg, first.flag.span, key=key(job, "unexplained-flags"), severity=Severity.INFO,
                            related=related + origin(first.flag))

    def _unknown_entry(self, ws, job):
        """A script netlint does not know may define any flag: one info naming the flags that need it."""
        from netlint.findings import Related

        core = megatron.options().get(megatron.CORE, {})
        flags, seen = [], set()
        own = job.vendored.flags if job.vendored is not None else frozenset()  # the script's own argparse
        for a in job.arg_list:
            name = a.name
            if isinstance(name, str) and name.startswith("--") and name not in core and name not in seen \
                    and name not in own:
                seen.add(name)
                flags.append(a)
        if not flags:
            return
        script = "the launched script"
        if job.entry is not None:
            span, text = job.entry.span, ws.text(job.entry.span.file)
            written = text[span.start:span.end] if text is not None and span.line > 0 else ""
            script = written or job.entry.raw or str(job.entry.value)
        names = ", ".join(a.name for a in flags[:6]) + (f" and {len(flags) - 6} more" if len(flags) > 6 else "")
        msg = (f"{script} is not a Megatron-LM entry point netlint knows; Megatron-LM's core parser does "
               f"not define {names}: the script must add them (extra_args_provider) or the launch stops "
               f"with 'unrecognized arguments'")
        close = [(a.name, megatron.suggest(a.name)) for a in flags]
        # only a slip of a core flag: a name merely like one (--apply-layernorm-rms, --apply-layernorm-1p)
        # is the script's own option with another meaning, and the hint would change the model
        close = [f"{n} (core has {h})" for n, h in close if h and megatron.is_misspelling(n, h)]
        if close:  # a hint only: the script may define its spelling on purpose, so no rename
            msg += "; close to a core flag: " + ", ".join(close[:3])
        related = [Related(a.flag.span, f"{a.name}") for a in flags[1:] if a.flag.span.line > 0]
        yield self.finding(msg, flags[0].flag.span, key=key(job, "unknown-entry"), severity=Severity.INFO,
                           related=related + origin(flags[0].flag))


def _first_word(flag: str) -> str:
    return flag.lstrip("-").split("-", 1)[0].lower()


def _families(job, parser) -> frozenset[str]:
    """First words that mark a fork's family of flags in this launch: shared by two flags the parser does
    not define (``--dion-momentum``, ``--dion-beta1``), or given as a value (``--optimizer dion``). A slip
    is one flag gone wrong; a family is a feature the script's Megatron-LM has."""
    from collections import Counter

    unknown = Counter(_first_word(a.name) for a in job.arg_list
                      if isinstance(a.name, str) and a.name.startswith("--") and a.name not in parser
                      and "-" in a.name.lstrip("-"))
    values = set()
    for a in job.arg_list:
        written = str(a.flag.value)
        if "=" in written:  # --optimizer=dion
            values.add(written.split("=", 1)[1].lower())
        values.update(str(v.value).lower() for v in a.values)
    return frozenset(w for w, n in unknown.items() if n > 1) | frozenset(w for w in unknown if w in values)

