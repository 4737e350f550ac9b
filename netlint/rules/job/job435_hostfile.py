from __future__ import annotations

from netlint.findings import Severity
from netlint.models.job import hostfiles
from netlint.rules.base import Rule


class HostfileEntries(Rule):
    """A hostfile line the DeepSpeed launcher rejects.

    **What**: a line that does not match ``HOST slots=N`` (after ``#`` comments and blank lines are
    skipped), or a host listed twice; in a file named like a hostfile (``hostfile``, ``hosts``,
    ``*.hostfile``, …) or named by ``deepspeed --hostfile FILE`` in a launch script.

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
        from netlint.models.job import training_jobs

        seen: set[str] = set()
        # a file named by `deepspeed --hostfile` is read even when its name is no hostfile name
        named = [j.hostfile for j in training_jobs(ws) if j.hostfile is not None]
        for hf in [*hostfiles(ws), *named]:
            if hf.file in seen:
                continue
            seen.add(hf.file)
            for line, span in hf.bad_lines:
                yield self.finding(f"bad hostfile entry '{line}': expected 'HOST slots=N'", span, key=f"bad:{line}")
            for name in hf.duplicates:
                yield self.finding(f"host {name.value} is listed more than once", name.span, key=f"dup:{name.value}")
