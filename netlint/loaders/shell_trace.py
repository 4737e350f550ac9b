"""Saved ``set -x`` output kept under a script's name (``log-megatron.sh``): said, not read as a script.

Its ``+ `` lines are commands as bash printed them after expansion and the lines between are their
output, so reading it as shell would build jobs from echoed text (netlint.loaders.base.is_shell_trace).
One NL012 (info) at its first line names what it is.
"""

from __future__ import annotations

from typing import Any, Iterator

from netlint.findings import Finding, Severity
from netlint.loaders.base import Loader, is_shell_trace
from netlint.located import Span
from netlint.source import SourceFile


class ShellTraceLoader(Loader):
    name = "shell-trace-unread"
    kind = "jobs"
    wants_by = "shell"

    def claims(self, src: SourceFile) -> bool:
        from netlint.nccl.build import mentions_nccl

        text = src.text
        return is_shell_trace(text) and (mentions_nccl(text) or "torchrun" in text or "srun" in text
                                         or "deepspeed" in text or "pretrain_" in text)

    def load(self, src: SourceFile) -> Iterator[Any]:
        yield Finding("NL012", "a trace of a run (set -x output: commands after `+ `, their output between), "
                               "not a script: netlint does not read it as one", Span(src.path, 1, 1, 1, 2, 0, 1),
                      Severity.INFO, key="shell-trace")
