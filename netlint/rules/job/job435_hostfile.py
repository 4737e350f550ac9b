from __future__ import annotations

from netlint.findings import Severity
from netlint.models.job import hostfiles
from netlint.rules.base import Rule


class HostfileEntries(Rule):
    """A hostfile line the DeepSpeed launcher rejects.

    **What**: a line that does not match ``HOST slots=N`` (after ``#`` comments and blank lines are
    skipped), or a host listed twice.

    **Why**: the DeepSpeed runner parses each line with ``^(\\S+)\\s+slots=(\\d+)`` and raises "Hostfile
    contains a bad entry: {line}" or "Hostfile contains multiple entries for {host}"
    (deepspeedai/DeepSpeed@38327e07 deepspeed/launcher/runner.py L226-255). gpt-neox uses the same
    parser.

    **Bad**: ``worker-1 gpus=4`` **Good**: ``worker-1 slots=4``

    **Source**: deepspeedai/DeepSpeed@38327e07 deepspeed/launcher/runner.py L226-255 (``_parse_hostfile``).
    """

    code = "JOB435"
    name = "hostfile-entry"
    severity = Severity.ERROR
    summary = "Hostfile lines must be 'host slots=N', each host once"

    def check(self, ws):
        for hf in hostfiles(ws):
            for line, span in hf.bad_lines:
                yield self.finding(f"bad hostfile entry '{line}': expected 'HOST slots=N'", span, key=f"bad:{line}")
            for name in hf.duplicates:
                yield self.finding(f"host {name.value} is listed more than once", name.span, key=f"dup:{name.value}")
