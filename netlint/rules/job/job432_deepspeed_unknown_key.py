from __future__ import annotations

from netlint.findings import Severity
from netlint.jobs import ds_keys
from netlint.located import MapNode
from netlint.models.job import ds_configs
from netlint.rules.base import Rule


class DeepSpeedUnknownKey(Rule):
    """A key DeepSpeed does not know.

    **What**: inside ``zero_optimization``, ``offload_param`` or ``offload_optimizer``: any unknown key
    (error); in ``fp16``/``bf16``: a key those sections do not have (warning: rejected since DeepSpeed
    0.17.1, ignored before — netlint cannot see which release runs); at the top level: a key that is a
    near-miss of a known one (warning, did-you-mean).

    **Why**: ``DeepSpeedZeroConfig`` and the offload configs are pydantic models with
    ``extra="forbid"``: an unknown key raises "Extra inputs are not permitted" at ``deepspeed.initialize``
    (config_utils.py L105-112). Top-level keys are read one by one with defaults, so a misspelt one is
    silently ignored (config.py L802-917, ``get_scalar_param`` = ``dict.get``) — only likely typos are
    reported there, to stay silent on
    keys of DeepSpeed versions netlint does not know.

    **Bad**: ``"zero_optimization": {"stage": 3, "overlap_com": true}`` **Good**: ``"overlap_comm"``

    **Fix**: the did-you-mean spelling (unsafe).

    A key that a DeepSpeed fork kept in the repository names in its config code (Habana's
    ``deepspeed-fork/deepspeed/runtime/constants.py`` adds ``bf16.accumulate_grads_via_hooks``) is the
    fork's, and not reported.

    Since 0.17.1 (deepspeedai/DeepSpeed commit e440506b) ``fp16`` and ``bf16`` are read into
    ``DeepSpeedFP16Config`` / ``DeepSpeedBF16Config``, models with ``extra="forbid"`` too
    (deepspeedai/DeepSpeed@edaa7221 deepspeed/runtime/precision_config.py, ``get_float16_config``).

    **Source**: microsoft/DeepSpeed@38327e07 deepspeed/runtime/config_utils.py L105-113
    (``extra="forbid"``), L193-194 (``get_scalar_param``); deepspeed/runtime/config.py L160-241 (the keys
    read under ``fp16``/``bf16``), L802-917 (``_initialize_params``); deepspeed/runtime/zero/config.py
    (``DeepSpeedZeroConfig``), deepspeed/runtime/zero/offload_config.py L21, L52 (the offload models).
    """

    code = "JOB432"
    name = "deepspeed-unknown-key"
    severity = Severity.ERROR
    summary = "DeepSpeed rejects unknown zero_optimization keys and ignores misspelt ones"

    def check(self, ws):
        from netlint.findings import Fix, replace_span
        from netlint.nearest import close_match

        from netlint.jobs.vendored_deepspeed import fork_keys

        for cfg in ds_configs(ws):
            root = cfg.root
            checks = [((), root, ds_keys.TOP, "top", Severity.WARNING)]
            z = root.get("zero_optimization")
            if isinstance(z, MapNode):
                checks.append((("zero_optimization",), z, ds_keys.ZERO, "all", Severity.ERROR))
                for sub, known in (("offload_param", ds_keys.OFFLOAD_PARAM), ("offload_optimizer", ds_keys.OFFLOAD_OPTIMIZER)):
                    if isinstance(z.get(sub), MapNode):
                        checks.append((("zero_optimization", sub), z.get(sub), known, "all", Severity.ERROR))
            for sec, known in (("fp16", ds_keys.FP16), ("bf16", ds_keys.BF16), ("bfloat16", ds_keys.BF16)):
                if isinstance(root.get(sec), MapNode):
                    checks.append(((sec,), root.get(sec), known, "ignored", Severity.WARNING))
            for path, node, known, mode, sev in checks:
                for k in node:
                    # a DeepSpeed fork in the repository reads keys of its own; looked for only once a key
                    # is unknown, as the search walks two folder levels of the repository
                    if k in known or not isinstance(k, str) or k in fork_keys(ws):
                        continue
                    hint = close_match(k, tuple(sorted(known)), 0.75)
                    if hint and not _slip(k, hint):
                        hint = None  # `checkpointing` is no slip of `checkpoint`: a block of its own
                    if mode == "top" and not hint:
                        continue
                    where = ".".join(path + (k,))
                    span = node.key_span(k)
                    if mode == "ignored":
                        other = "fp16" if path[0] != "fp16" else "bf16"
                        msg = (f"{where} is not a key of DeepSpeed's {path[0]} section: DeepSpeed 0.17.1 and later "
                               f"stop with \"Extra inputs are not permitted\", earlier releases ignore it")
                        if k in ds_keys.FP16 and path[0] != "fp16":
                            msg += f" (it is an {other} loss-scaling key; bf16 needs no loss scaling)"
                    elif mode == "top":
                        msg = f"unknown DeepSpeed key {where} is ignored"
                    else:
                        msg = f"unknown key {where}: DeepSpeed stops with \"Extra inputs are not permitted\""
                    fix = None
                    if hint:
                        msg += f"; did you mean '{hint}'?"
                        text = ws.text(span.file)
                        if text is not None and text[span.start:span.end] == f'"{k}"':
                            fix = Fix(f"rename to {hint}", (replace_span(span, f'"{hint}"', text),), safe=False)
                    yield self.finding(msg, span, key=f"{cfg.file}:{where}", fix=fix, severity=sev)


def _slip(key: str, hint: str) -> bool:
    """``key`` reads as ``hint`` mistyped: a letter or two off (``overlap_com``), not ``hint`` with a word
    added or cut (``checkpointing``, a custom block beside ``checkpoint``; round 14)."""
    from netlint.nearest import distance

    a, b = key.lower(), hint.lower()
    if a.replace("-", "_") == b:
        return True
    if (a.startswith(b) or b.startswith(a)) and abs(len(a) - len(b)) >= 3:
        return False  # a word added or cut, not a letter
    return distance(a, b, 2) <= 2
