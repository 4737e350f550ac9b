from __future__ import annotations

from netlint.findings import Severity
from netlint.models.job import ds_configs
from netlint.located import Scalar
from netlint.rules.base import Rule
from netlint.rules.job.common import jobs, key, related


class Fp16AndBf16(Rule):
    """fp16 and bf16 both enabled.

    **What**: ``--fp16`` and ``--bf16`` on one Megatron command line, or ``fp16.enabled`` and
    ``bf16.enabled`` both true in a DeepSpeed config.

    **Why**: Megatron asserts they are exclusive (arguments.py L1195-1206); DeepSpeed raises
    "bfloat16 and fp16 modes cannot be simultaneously enabled" (runtime/config.py L834-835).

    **Bad**: ``"fp16": {"enabled": true}, "bf16": {"enabled": true}`` **Good**: one of them

    **Source**: NVIDIA/Megatron-LM@d98e8a64 megatron/training/arguments.py L1195-1196, L1204-1205;
    microsoft/DeepSpeed@38327e07 deepspeed/runtime/config.py L834-835.
    """

    code = "JOB410"
    name = "fp16-and-bf16"
    severity = Severity.ERROR
    summary = "fp16 and bf16 cannot both be enabled"

    def check(self, ws):
        for job in jobs(ws, "megatron", "megatron-deepspeed"):
            if job.fp16 is not None and job.bf16 is not None and job.launch is not None:
                yield self.finding("--fp16 and --bf16 are both given", job.bf16.span, key=key(job, "fp16-bf16"),
                                   related=related((job.fp16, "--fp16")))
        for cfg in ds_configs(ws):
            f, b = cfg.get("fp16", "enabled"), cfg.get("bf16", "enabled") or cfg.get("bfloat16", "enabled")
            if isinstance(f, Scalar) and isinstance(b, Scalar) and f.value is True and b.value is True:
                yield self.finding("fp16.enabled and bf16.enabled are both true", b.span, key=f"{cfg.file}:fp16-bf16",
                                   related=related((f, "fp16.enabled")))
