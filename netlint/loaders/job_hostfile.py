"""DeepSpeed / gpt-neox hostfiles (``host slots=N`` per line; deepspeedai/DeepSpeed@38327e07
deepspeed/launcher/runner.py L226-255). A config and a hostfile of one folder form a job
(:mod:`netlint.jobs.pairing`)."""

from __future__ import annotations

import re
from typing import Any, Iterator

from netlint.loaders.base import Loader
from netlint.source import SourceFile

_LINE = re.compile(r"^\s*\S+\s+slots=\d+", re.M)


class HostfileLoader(Loader):
    name = "job-hostfile"
    kind = "jobs"
    filenames = ("hostfile", "host_file", "hostfile.txt", "hosts", "host-file")
    suffixes = (".hostfile",)

    def claims(self, src: SourceFile) -> bool:
        return _LINE.search(src.text) is not None

    def load(self, src: SourceFile) -> Iterator[Any]:
        from netlint.jobs.deepspeed import parse_hostfile

        yield parse_hostfile(src.path, src.text)
