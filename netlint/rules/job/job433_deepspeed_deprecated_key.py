from __future__ import annotations

from netlint.findings import Fix, Severity, replace_span
from netlint.jobs import ds_keys
from netlint.located import MapNode
from netlint.models.job import ds_configs
from netlint.rules.base import Rule


class DeepSpeedDeprecatedKey(Rule):
    """A deprecated ``zero_optimization`` key.

    **What**: ``cpu_offload``, ``cpu_offload_param``, ``cpu_offload_use_pin_memory``,
    ``stage3_gather_fp16_weights_on_model_save``.

    **Why**: DeepSpeed warns "Config parameter … is deprecated use … instead" and maps it; giving the old
    and the new key together raises "Cannot provide deprecated parameter '…' and replacing parameter '…'
    together" (zero/config.py L174-206, L265-270; config_utils.py L60-97). Deprecated keys disappear in later
    releases.

    **Bad**: ``"cpu_offload": true`` **Good**: ``"offload_optimizer": {"device": "cpu"}``

    **Fix**: renames ``stage3_gather_fp16_weights_on_model_save`` (safe, same meaning).

    **Source**: microsoft/DeepSpeed@38327e07 deepspeed/runtime/zero/config.py L174-206, L265-270;
    deepspeed/runtime/config_utils.py L60-97 (``_process_deprecated_field``).
    """

    code = "JOB433"
    name = "deepspeed-deprecated-key"
    severity = Severity.WARNING
    summary = "Deprecated DeepSpeed zero_optimization key"

    def check(self, ws):
        for cfg in ds_configs(ws):
            z = cfg.root.get("zero_optimization")
            if not isinstance(z, MapNode):
                continue
            for k, (new, how) in ds_keys.DEPRECATED_ZERO.items():
                if k not in z:
                    continue
                span = z.key_span(k)
                both = new in z
                msg = f"zero_optimization.{k} is deprecated; use {new}"
                if both:
                    msg += f" — and giving both is an error in DeepSpeed"
                fix = None
                text = ws.text(span.file)
                if how == "rename" and not both and text is not None and text[span.start:span.end] == f'"{k}"':
                    fix = Fix(f"rename to {new}", (replace_span(span, f'"{new}"', text),), safe=True)
                yield self.finding(msg, span, key=f"{cfg.file}:zero_optimization.{k}", fix=fix,
                                   severity=Severity.ERROR if both else None)
