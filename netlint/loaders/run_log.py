"""Run evidence: NCCL debug logs (``NCCL_DEBUG=INFO``/``TRACE``/``VERSION``) and nccl-tests output.

Recognised by content — NCCL's own line prefix ``host:pid:tid [dev] NCCL INFO`` anywhere in a line
(after any launcher prefix), its bare version string, or nccl-tests' parameters line and result
table — in files named like logs (``*.log``, ``*.txt``, ``*.out``, ``*.err``, ``*.nccl``) or as schedulers
name their output (``job.sh.o7194285``, LSF ``gpt3.3314739.o``). One file may hold both
(a test run with ``NCCL_DEBUG=INFO``). The text is walked once, line by line
(:mod:`netlint.run.lines`); repeated records are bounded (:data:`netlint.models.run.MAX_RECORDS`) and
what a bound left out is reported as NL012.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from netlint.loaders.base import Loader
from netlint.source import SourceFile

class RunLogLoader(Loader):
    name = "run-log"
    kind = "runs"
    suffixes = (".log", ".txt", ".out", ".err", ".nccl")
    wants_by = "run_log"

    def claims(self, src: SourceFile) -> bool:
        from netlint.run.lines import sniff

        return sniff(src.text)

    def load(self, src: SourceFile) -> Iterator[Any]:
        log = read_log(src.path, src.text, src.name)
        yield from _bounds(log)
        yield from _rows_unread(log)
        yield log


def read_log(file: str, text: str, name: str = ""):
    from netlint.located import Span
    from netlint.models.run import RunLog
    from netlint.run.lines import iter_lines, strip_launcher
    from netlint.run.nccl_log import NcclReader
    from netlint.run.nccl_tests import TestsReader

    nccl = NcclReader(file)
    tests = TestsReader(file, name)
    lines = 0
    for lineno, offset, line in iter_lines(text):
        lines = lineno
        if not line:
            continue
        body = strip_launcher(line)
        try:
            cut = _glued(line, body, tests) if "NCCL " in line else None
            if cut is not None:  # nccl-tests output with an NCCL line printed onto it
                tests.glued(lineno, offset, line, body, cut)
                line, body = " " * cut + line[cut:], cut
            if nccl.line(lineno, offset, line, body):
                continue
            tests.line(lineno, offset, line, body)
        except ValueError:   # a number past int()'s digit limit (4300): not a line NCCL wrote
            continue
    run = nccl.run if nccl.run.first is not None else None
    found = tests.finish()
    shapes = {(c.nranks, c.nnodes) for c in run.comms} if run is not None else set()
    if len(found) == 1 and len(shapes) == 1 and not found[0].devices:
        found[0].comm_shape = next(iter(shapes))   # one test, one communicator shape: that is the test's
    return RunLog(file=file, span=Span(file, 1, 1, 1, 1, 0, 0), lines=lines, nccl=run, tests=found)


def _glued(line: str, body: int, tests) -> int | None:
    """Where the NCCL line starts in a line whose head is nccl-tests output (a row, or the rest of one)
    that it was printed onto — with ``NCCL_DEBUG_SUBSYS=COLL`` NCCL logs each call between nccl-tests'
    ``printf``s of a row. NCCL's host name then follows the row's last number with no space
    (``-1mew0:64904:…``): it is one of the hosts the test's device lines name. None otherwise."""
    from netlint.run.lines import nccl_prefix
    from netlint.run.nccl_tests import ROW

    p = nccl_prefix(line, body)
    if p is None or p.start <= body or not tests.runs:
        return None
    head = line[body:p.start]
    if not head.strip() or not (tests.partial is not None or ROW.match(head + " ")):
        return None
    hosts = {d.host for d in tests.runs[-1].devices}
    for host in hosts:
        if p.host.endswith(host) and len(p.host) > len(host):
            return p.start + len(p.host) - len(host)
    rank = _RANK_TAIL.search(head)  # `… -1[0] host:pid:tid`: an MPI rank prefix (-prepend-rank) between
    if rank is not None and p.host in hosts:
        return body + rank.start()
    return None


_RANK_TAIL = re.compile(r"\[\d{1,6}\][ \t]*\Z")


def _rows_unread(log) -> Iterator[Any]:
    """NL012 for an nccl-tests run whose footer was read but none of its result rows: its bandwidth is
    then judged by nothing, which must not pass in silence."""
    from netlint.findings import Finding, Severity

    for test in log.tests:
        footer = test.avg_busbw or test.out_of_bounds
        if not test.rows and footer is None and test.unread_row is not None:
            # an excerpt cut after the header: its rows cannot be split into columns without it
            at = test.unread_row
            yield Finding("NL012", "nccl-tests result rows not read: the log has no column header "
                                   "(`#       size         count      type …`) before them, so their bus "
                                   "bandwidth is not checked", at, Severity.INFO, key=f"run-log-rows:{at.line}")
        if not test.rows and footer is not None:
            name = test.program.value if test.program is not None else "nccl-tests"
            yield Finding("NL012", f"{name} result table not read: none of its rows could be read, so its bus "
                                   f"bandwidth is not checked", footer.span, Severity.INFO,
                          key=f"run-log-rows:{footer.span.line}")


def _bounds(log) -> Iterator[Any]:
    from netlint.findings import Finding, Severity
    from netlint.models.run import MAX_RECORDS

    if log.nccl is None or not log.nccl.dropped:
        return
    what = ", ".join(f"{n} {name.replace('_', ' ')}" for name, n in sorted(log.nccl.dropped.items()))
    yield Finding("NL012", f"log read in part: past {MAX_RECORDS} records of a kind the rest were only "
                           f"counted ({what} left out)", log.span, Severity.INFO, key="run-log-bound")
