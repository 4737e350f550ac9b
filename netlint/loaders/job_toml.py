"""torchtitan job TOML (``[parallelism]`` / ``[training]``), kind ``jobs``."""

from __future__ import annotations

from typing import Any, Iterator

from netlint.loaders.base import Loader
from netlint.source import SourceFile


class TorchtitanLoader(Loader):
    name = "job-torchtitan"
    kind = "jobs"
    suffixes = (".toml",)

    def claims(self, src: SourceFile) -> bool:
        return "[parallelism]" in src.text and "tensor_parallel_degree" in src.text

    def load(self, src: SourceFile) -> Iterator[Any]:
        from netlint.jobs.configs import torchtitan_job
        from netlint.loaders.base import parse_finding
        from netlint.located import ParseError

        try:
            yield torchtitan_job(src.path, src.text)
        except ParseError as exc:  # the position is tomllib's own (or the number's, NL005)
            yield parse_finding("TOML", exc)
