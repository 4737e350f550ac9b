"""Reading a run's output line by line: offsets, launcher prefixes, NCCL's line prefix.

A log is walked once, lazily (``str.find`` from line to line; no list of all lines is built), and a
line longer than :data:`MAX_LINE` is skipped: NCCL's own lines are at most 1,024 bytes (its
``char buffer[1024]``, NVIDIA/nccl@68b54236 (v2.23.4-1) ``src/debug.cc`` L196) and nccl-tests rows
far less. The file itself is bounded by the engine (``limits.max-file-mb``).

NCCL's prefixes (v2.23.4-1 ``src/debug.cc`` L200-210; the same at 5067397c (2.30.7) L330-360, which may
put a ``[%F %T] `` timestamp first, ``NCCL_DEBUG_TIMESTAMP_FORMAT``):

- ``%s:%d:%d [%d] NCCL INFO `` — hostname (up to its first dot), pid, tid, CUDA device (not the rank);
- ``%s:%d:%d [%d] %s:%d NCCL WARN `` — plus source file and line (2.30: ``… %s:%d (%s) NCCL WARN``);
- ``%s:%d:%d [%d] %f %s:%d NCCL TRACE `` — plus milliseconds and function:line;
- ``%s:%d:%d NCCL CALL ``.

Launchers put their own prefix first: Open MPI ``--tag-output`` ``[1,0]<stdout>:``, Slurm ``srun
--label`` ``0: ``, PyTorch elastic ``[rank0]:``, Intel MPI / MPICH ``-prepend-rank`` ``[0] `` (which
also lands inside a line each time a process flushes part of it: ``-1[0]    1626.5``). :func:`nccl_prefix` finds NCCL's prefix anywhere
in the line, so any launcher prefix before it is skipped; :func:`strip_launcher` removes them for
lines that have no NCCL prefix (nccl-tests output).
"""

from __future__ import annotations

import re
from typing import Iterator

from netlint.located import Span

MAX_LINE = 65536

# NCCL's prefix ends with the level marker; the marker is found first (a literal, linear scan) and the
# prefix matched only in the few hundred characters before it, with bounded repeats, so a hostile line
# of 64k characters costs a bounded amount (an unanchored search over it would be quadratic).
MARKER = re.compile(r"NCCL (INFO|WARN|TRACE|CALL) ")
PREFIX = re.compile(r"(?P<host>[A-Za-z0-9_.\-]{0,255}):(?P<pid>\d{1,10}):(?P<tid>\d{1,10}) (?:\[(?P<dev>\d{1,6})\] )?"
                    r"(?:\d{1,20}\.\d{1,20} )?(?:[^\s:]{1,255}:\d{1,10} (?:\([^)]{0,255}\) )?)?\Z")
# The same prefix with ``host:pid:tid`` cut to one word, as logs pasted into public issues often are
# (``node [0] NCCL INFO …``): read, with no process id.
REDACTED = re.compile(r"(?P<host>[A-Za-z0-9_.\-]{1,64}) \[(?P<dev>\d{1,6})\] (?:\d{1,20}\.\d{1,20} )?"
                      r"(?:[^\s:]{1,255}:\d{1,10} (?:\([^)]{0,255}\) )?)?\Z")
WINDOW = 800


class NcclPrefix:
    """Where NCCL's line prefix is in a line: ``start`` (its hostname), ``end`` (after the level)."""

    __slots__ = ("host", "pid", "level", "start", "end")

    def __init__(self, host: str, pid: str, level: str, start: int, end: int):
        self.host, self.pid, self.level, self.start, self.end = host, pid, level, start, end


def nccl_prefix(line: str, start: int = 0) -> NcclPrefix | None:
    """NCCL's ``host:pid:tid [dev] … NCCL LEVEL `` prefix in ``line`` (after any launcher prefix; from
    ``start`` when the caller knows where that prefix ends)."""
    for n, marker in enumerate(MARKER.finditer(line, start)):
        if n == 4:   # one prefix per line (a pasted table may repeat a line once or twice)
            break
        lo = max(start, marker.start() - WINDOW)
        p = PREFIX.search(line, lo, marker.start())
        if p is not None:
            return NcclPrefix(p.group("host"), p.group("pid"), marker.group(1), p.start(), marker.end())
        p = REDACTED.search(line, lo, marker.start())
        if p is not None and not line[lo:p.start()].strip(" []:-0123456789T.,"):  # only a launcher/time prefix before
            return NcclPrefix(p.group("host"), "", marker.group(1), p.start(), marker.end())
    return None


LAUNCHER = re.compile(r"(?:\s*\[\d+,\d+\]<(?:stdout|stderr)>:|\s*\d+:\s|\s*\[rank\d+\]:\s?|\s*\[\d+\]\s"
                      r"|\s*\[\d{4}-\d\d-\d\d[ T][\d:.,]+\]\s"
                      # an AWS CloudWatch console copy: `  | 2025-05-16T16:39:51.208-07:00 | `, the host
                      # often glued to the time zone (`…-07:00ip-10-…`)
                      r"|\s*\|\s*\d{4}-\d\d-\d\dT[\d:.]+(?:[+-]\d\d:\d\d|Z)?(?:\s*\|)?\s*)*")

MARKERS = (" NCCL INFO ", " NCCL WARN ", " NCCL TRACE ")

# NCCL_DEBUG=VERSION (or WARN) prints the version string alone: "NCCL version 2.23.4+cuda12.6"
# (v2.23.4-1 src/init.cc L527-530: VERSION_STRING, always with "+cuda").
BARE_VERSION = re.compile(r"NCCL version (\d+\.\d+\.\d+)\S*\+cuda\d")


def iter_lines(text: str) -> Iterator[tuple[int, int, str]]:
    """(1-based line number, offset of the line's first character, the line without its end)."""
    pos, n, lineno = 0, len(text), 0
    while pos < n:
        lineno += 1
        end = text.find("\n", pos)
        if end < 0:
            end = n
        stop = end - 1 if end > pos and text[end - 1] == "\r" else end
        if stop - pos <= MAX_LINE:
            yield lineno, pos, text[pos:stop]
        pos = end + 1


def strip_launcher(line: str) -> int:
    """Where the text after the launcher prefixes (``[1,0]<stdout>:``, ``0: ``, ``[rank0]:``) begins."""
    return LAUNCHER.match(line).end()


class Locator:
    """Spans of tokens on the current line."""

    __slots__ = ("file", "lineno", "offset")

    def __init__(self, file: str):
        self.file, self.lineno, self.offset = file, 0, 0

    def at(self, lineno: int, offset: int) -> "Locator":
        self.lineno, self.offset = lineno, offset
        return self

    def span(self, start: int, end: int) -> Span:
        """The span of ``line[start:end]`` on the current line."""
        return Span(self.file, self.lineno, start + 1, self.lineno, end + 1, self.offset + start, self.offset + end)


def sniff(text: str) -> bool:
    """Is there NCCL debug output or an nccl-tests table in ``text``? (cheap substring tests first)"""
    for m in MARKERS:
        at, seen = text.find(m), 0
        while at >= 0 and seen < 50:
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            if nccl_prefix(text[start:end if end >= 0 else len(text)][:MAX_LINE]) is not None:
                return True
            at, seen = text.find(m, at + 1), seen + 1
    if "+cuda" in text and BARE_VERSION.search(text):
        return True
    from netlint.run.nccl_tests import sniff as tests_sniff

    return tests_sniff(text)
