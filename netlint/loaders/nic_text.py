"""What the NIC text-dump loaders share: which file names may hold a dump (content decides)."""

from __future__ import annotations

import re

from netlint.loaders.base import Loader

# Saved command output: `mlxconfig -d mlx5_0 q > cx7-mlxconfig.txt`, `mlnx_qos -i eth2 > qos.log`,
# `grep -r . /sys/class/net/*/ecn > ecn.out`. Files without a suffix only when the name says so.
SUFFIXES = (".txt", ".log", ".out", ".dump", ".query")
_NAME_HINTS = ("mlxconfig", "mstconfig", "mlnx_qos", "mlnx-qos", "sysfs", "ecn", "dcqcn", "cc_params", "roce")


def wants_dump(name: str, suffix: str) -> bool:
    if suffix in SUFFIXES:
        return True
    return suffix == "" and any(h in name.lower() for h in _NAME_HINTS)


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

    def wants(self, name: str, suffix: str) -> bool:
        return wants_dump(name, suffix)
