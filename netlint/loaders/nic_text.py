"""What the NIC text-dump loaders share: which file names may hold a dump (content decides)."""

from __future__ import annotations

import re

from netlint.loader_names import DUMP_SUFFIXES as SUFFIXES, wants_dump  # noqa: F401  (importers find them here)
from netlint.loaders.base import Loader


def command_arg(text: str, command: str, flag: str) -> tuple[int, re.Match] | None:
    """The line index and match of ``<command> … <flag> <value>`` when the dump records its command."""
    pattern = re.compile(rf"\b{re.escape(command)}\b[^\n]*?\s{re.escape(flag)}\s*(?P<value>[^\s;|>]+)")
    for i, line in enumerate(text.splitlines()):
        m = pattern.search(line)
        if m:
            return i, m
    return None


class DumpLoader(Loader):
    """A loader of saved NIC command output: kind ``nics``, file names as :func:`wants_dump` says."""

    kind = "nics"
    wants_by = "nic_dump"
