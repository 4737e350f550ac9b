"""torchtitan job TOML (``[parallelism]`` / ``[training]``), kind ``jobs``."""

from __future__ import annotations

from typing import Any, Iterator

from netlint.findings import Finding
from netlint.loaders.base import Loader
from netlint.located import Span
from netlint.source import SourceFile


class TorchtitanLoader(Loader):
    name = "job-torchtitan"
    kind = "jobs"
    suffixes = (".toml",)

    def claims(self, src: SourceFile) -> bool:
        return "[parallelism]" in src.text and "tensor_parallel_degree" in src.text

    def load(self, src: SourceFile) -> Iterator[Any]:
        import tomllib

        from netlint.jobs.configs import torchtitan_job

        try:
            yield torchtitan_job(src.path, src.text)
        except tomllib.TOMLDecodeError as exc:
            yield Finding("NL003", f"TOML does not parse: {exc}", Span(src.path, 1, 1, 1, 1, 0, 0), key="parse")
