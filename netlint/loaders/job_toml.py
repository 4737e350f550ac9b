"""torchtitan job TOML, kind ``jobs``: the ``[parallelism]`` layout (pytorch/torchtitan@785c34c9 on)
and the older one with the sizes in ``[training]`` / ``[experimental]`` (netlint/jobs/torchtitan_layout.py)."""

from __future__ import annotations

import re
from typing import Any, Iterator

from netlint.loaders.base import Loader
from netlint.source import SourceFile

# Section headers torchtitan's JobConfig has in every version (job, model, training: @c22d1a8d and
# @238fa99 alike) and keys only a torchtitan config writes beside them.
_HEADER = re.compile(r"^[ \t]*\[[ \t]*(job|model|training|parallelism|experimental)[ \t]*\]", re.M)
_MARKERS = ("_parallel_degree", "flavor", "dump_folder")


class TorchtitanLoader(Loader):
    name = "job-torchtitan"
    kind = "jobs"
    suffixes = (".toml",)

    def claims(self, src: SourceFile) -> bool:
        text = src.text
        if "[" not in text:
            return False
        heads = set(_HEADER.findall(text))
        if "parallelism" in heads and "_parallel_degree" in text:
            return True
        return "training" in heads and bool(heads & {"job", "model", "experimental"}) \
            and any(m in text for m in _MARKERS)

    def load(self, src: SourceFile) -> Iterator[Any]:
        from netlint.findings import Finding, Severity
        from netlint.jobs.configs import torchtitan_job
        from netlint.loaders.base import parse_finding
        from netlint.located import ParseError

        unread: list = []
        try:
            yield torchtitan_job(src.path, src.text, unread=unread)
        except ParseError as exc:  # the position is tomllib's own (or the number's, NL005)
            yield parse_finding("TOML", exc)
        from netlint.jobs.unread import SIZES_SAID

        for field, message, span, key in unread:
            if field in SIZES_SAID:
                continue  # the training job's NL012 says it (netlint/rules/nl/partly_read.py)
            yield Finding("NL012", f"torchtitan config read in part: {message}", span, Severity.INFO,
                          key=f"torchtitan:{key}")
