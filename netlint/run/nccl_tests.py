"""nccl-tests output (``all_reduce_perf`` …) into located :class:`~netlint.models.run.TestsRun` records.

The shapes are nccl-tests' own ``printf`` formats, NVIDIA/nccl-tests@a0b82b22 (2.19.6) ``src/util.cu``
unless another commit is named (v2.13.9 = c6afef0b, ``src/common.cu``):

- ``# nccl-tests version %s nccl-headers=%d nccl-library=%d`` L623, ``# Collective test starting: %s``
  L624 (the program name; older versions do not print it);
- ``# nThread %d nGpus %d minBytes %ld maxBytes %ld step: %ld(%s) warmup iters: %d iters: %d agg
  iters: %d validation: %d graph: %d unalign: %d`` L625 (v2.13.9 L875: without ``unalign``; older
  without ``agg iters``/``graph``);
- ``#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s`` L687 (v2.13.9 L895:
  ``[0x%02x]``; older without ``Group``): one line per rank, so ranks and hosts are counted here;
- the header ``# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s …`` naming ``size count type redop root
  time algbw busbw #wrong time algbw busbw #wrong`` (out-of-place, then in-place) L756-759, with
  per-iteration columns ``i_min i_max i_p99 i_cv%`` when ``-I 1`` L746-751 — the columns are read
  by their names, so every variant is understood;
- each row ``%12li  %12li  %8s  %6s  %6s`` L457 then ``  %7s  %6s  %6s  %6g`` per placement L508
  (``N/A`` when not checking, L510);
- ``# %-20s : %d %s`` ``Out of bounds values`` ``OK|FAILED`` L777, ``# %-20s : %g %s`` ``Avg bus
  bandwidth`` L778 (v2.13.9 L1055-1056: ``# Out of bounds values : %d %s``, ``# Avg bus bandwidth    : %g``).

Bus bandwidth is nccl-tests' ``algbw × factor`` (``doc/PERFORMANCE.md``, "Bus bandwidth";
``src/all_reduce.cu`` L60-64 …): the figure comparable with the hardware's link rate.
"""

from __future__ import annotations

import re

from netlint.located import Span
from netlint.models.run import MAX_RECORDS, Cell, Fact, TestDevice, TestRow, TestsRun
from netlint.run.lines import Locator

VERSION = re.compile(r"# nccl-tests version (\S+)")
# `nccl-library=23004`: ncclGetVersion() of the library loaded at run time (nccl-tests src/common.cu)
LIBRARY = re.compile(r"\bnccl-library=(\d{4,6})\b")
STARTING = re.compile(r"# Collective test starting: (\S+)")
# blanks between the fields as printed or pasted (a tab before `iters:` in NVIDIA/nccl#583's paste)
PARAMS = re.compile(r"#[ \t]*nThread[ \t]+(\d+)[ \t]+nGpus[ \t]+(\d+)[ \t]+minBytes[ \t]+(\d+)[ \t]+maxBytes[ \t]+(\d+)"
                    r"[ \t]+step:[ \t]*(\d+)\((\w+)\)[ \t]+warmup[ \t]+iters:[ \t]*(\d+)[ \t]+iters:[ \t]*(\d+)"
                    r"(?:[ \t]+agg[ \t]+iters:[ \t]*(\d+))?[ \t]+validation:[ \t]*(\d+)(?:[ \t]+graph:[ \t]*(\d+))?")
HEADER = re.compile(r"(?m)^\S{0,40}[ \t]{0,40}#?[ \t]{1,40}size[ \t]+count[ \t]+type[ \t]+redop[ \t][^\n]*?\balgbw[ \t]+busbw\b")
PARAMS_ANY = re.compile(r"nThread[ \t]+\d+[ \t]+nGpus[ \t]+\d+[ \t]+minBytes[ \t]+\d+[ \t]+maxBytes[ \t]+\d+")
DEVICE = re.compile(r"#\s+Rank\s+(\d+)(?:\s+Group\s+\d+)?\s+Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)\s+\[[^\]]*\]\s*(\S.*\S|\S|)")
OOB = re.compile(r"# Out of bounds values\s*: (\d+)")
AVG = re.compile(r"# Avg bus bandwidth\s*: (\S+)")
PROGRAM = re.compile(r"\b((?:all_reduce|all_gather|reduce_scatter|alltoall|alltoallv|broadcast|reduce|sendrecv|"
                     r"gather|scatter|hypercube)_perf)(?:_mpi)?\b")
# size, count, type, then redop (``sum``) or, where an old release printed it empty for a collective
# without reduction (alltoall), the first time (``96.44``)
ROW = re.compile(r"\s*\d+\s+\d+\s+\w+\s+[\w.]+\s")
TOKEN = re.compile(r"\S+")
UNMARKED = re.compile(r"\s*(nThread \d|Rank\s+\d+ (?:Group|Pid)|Using devices|Out of bounds values|Avg bus bandwidth"
                      r"|nccl-tests version|Collective test|size\s+count\s)")
# Default columns (util.cu L757) for a table pasted without its header; v2.10 and older had no root.
DEFAULT_COLUMNS = ("size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
                   "time", "algbw", "busbw", "#wrong")
TIMES = ("time", "cputime")


def sniff(text: str) -> bool:
    return (("nThread " in text and " minBytes " in text and PARAMS_ANY.search(text) is not None)
            or ("busbw" in text and "algbw" in text and ("Avg bus bandwidth" in text or HEADER.search(text) is not None))
            or _bare_rows(text))


# nccl-tests' data type names (src/common.cu ``ncclTypeStr``)
_DTYPES = "float|double|half|bfloat16|int8|uint8|int32|uint32|int64|uint64|f8e4m3|f8e5m2|fp8_e4m3|fp8_e5m2"

# a whole result row: size, count, type, redop, root, then the out-of-place and in-place columns
_FULL_ROW = re.compile(rf"\s(\d+)\s+\d+\s+(?:{_DTYPES})\s+\w+\s+-?\d+(?:\s+(?:[\d.]+|N/A)){{8}}[ \t]*$")


def _bare_rows(text: str) -> bool:
    """Result rows pasted with nothing else (aws/aws-k8s-tester#585's "Results" block): three or more.
    Only lines of a row's length are tried, so a long line costs one substring test."""
    if " float " not in text and " half " not in text and " bfloat16 " not in text:
        return False
    found = 0
    for line in text.splitlines():
        if len(line) < 300 and (" float " in line or " half " in line or " bfloat16 " in line) \
                and _FULL_ROW.search(line):
            found += 1
            if found >= 3:
                return True
    return False


# `512  128  float  sum  -1 …`: size, count and a data type, as a result row starts (nccl-tests
# src/common.cu ``ncclTypeStr``) — seen where no header names the columns, it is a row netlint could not read
ROWISH = re.compile(rf"^\s*\d+\s+\d+\s+(?:{_DTYPES})\s")


class TestsReader:
    """Feed it lines (:meth:`line`); :attr:`runs` are the test runs found."""

    def __init__(self, file: str, name: str):
        self.runs: list[TestsRun] = []
        self.loc = Locator(file)
        self.program: Fact | None = None     # a program named before its parameters line (the command)
        self.name_program = PROGRAM.search(name)
        self.columns: tuple[str, ...] = ()
        self.partial = None  # (tokens, row span, columns) of a row an NCCL line cut short

    def _current(self, loc: Locator, body: int, line: str, fresh: bool = False) -> TestsRun:
        cur = self.runs[-1] if self.runs else None
        if cur is None or (fresh and (cur.rows or cur.params)):
            cur = TestsRun(start=loc.span(body, len(line)))
            if self.program is not None:
                cur.program, self.program = self.program, None
            self.runs.append(cur)
        return cur

    def line(self, lineno: int, offset: int, line: str, body: int) -> None:
        loc = self.loc.at(lineno, offset)
        text = line[body:]
        if text.startswith("#"):
            self._comment(loc, line, body, text)
            return
        m = UNMARKED.match(text)
        if m:   # a paste whose '#' a Markdown renderer ate: read it as the comment it was
            start = body + m.start(1)
            self._comment(loc, line, start - 2, "# " + line[start:])
            return
        if self.partial is not None and self._more(loc, line, body):
            return
        if ROW.match(text):
            self._row(loc, line, body)
            return
        m = PROGRAM.search(text)
        if m and (not self.runs or self.runs[-1].rows):
            self.program = Fact(m.group(1), loc.span(body + m.start(1), body + m.end(1)))

    def _comment(self, loc: Locator, line: str, body: int, text: str) -> None:
        m = PARAMS.match(text)
        if m:
            run = self._current(loc, body, line, fresh=True)
            run.start = loc.span(body, len(line))
            keys = ("nThread", "nGpus", "minBytes", "maxBytes", "step", "stepKind", "warmup", "iters", "agg",
                    "validation", "graph")
            run.params = {k: (v if k == "stepKind" else int(v)) for k, v in zip(keys, m.groups()) if v is not None}
            return
        m = STARTING.match(text) or VERSION.match(text)
        if m:
            run = self._current(loc, body, line, fresh=True)
            if text.startswith("# Collective"):
                run.program = Fact(m.group(1), loc.span(body + m.start(1), body + m.end(1)))
            lib = LIBRARY.search(text)
            if lib is not None and (v := _release(int(lib.group(1)))) is not None:
                run.library = Fact(v, loc.span(body + lib.start(1), body + lib.end(1)))
            return
        m = DEVICE.match(text)
        if m:
            run = self._current(loc, body, line)
            if len(run.devices) < MAX_RECORDS:
                run.devices.append(TestDevice(int(m.group(1)), m.group(2), int(m.group(3)), m.group(4),
                                              loc.span(body, len(line))))
            return
        if "busbw" in text and "size" in text:
            self.columns = tuple(t for t in text[1:].split())
            if self.runs and not self.runs[-1].columns:
                self.runs[-1].columns = self.columns   # the run has its header, rows or not
            return
        m = OOB.match(text)
        if m:
            run = self._current(loc, body, line)
            run.out_of_bounds = Fact(int(m.group(1)), loc.span(body + m.start(1), body + m.end(1)))
            return
        m = AVG.match(text)
        if m:
            run = self._current(loc, body, line)
            try:
                value = float(m.group(1))
            except ValueError:
                value = None
            run.avg_busbw = Fact(value, loc.span(body + m.start(1), body + m.end(1)))

    def _row(self, loc: Locator, line: str, body: int, end: int | None = None) -> None:
        tokens = [(t.group(0), loc.span(t.start(), t.end())) for t in TOKEN.finditer(line, body, len(line) if end is None else end)]
        columns = self._columns(tokens)
        if end is not None and len(tokens) < len(columns):  # cut short by an NCCL line: the rest follows
            if self.columns:  # the header says how many fields a row has; without it a piece cannot tell
                self.partial = (tokens, loc.span(body, end), columns)
            else:
                self._unread(loc.span(body, end), line[body:end])
            return
        if not self._add_row(tokens, loc.span(body, len(line)), columns) and not self.columns:
            self._unread(loc.span(body, len(line)), line[body:])

    def _unread(self, span: Span, text: str) -> None:
        """A row netlint could not split into columns because no header named them: said once (NL012)."""
        if self.runs and self.runs[-1].unread_row is None and ROWISH.match(text):
            self.runs[-1].unread_row = span

    def _columns(self, tokens) -> tuple[str, ...]:
        columns = self.columns or (DEFAULT_COLUMNS if len(tokens) >= 13 else
                                   tuple(c for c in DEFAULT_COLUMNS if c != "root"))
        if len(tokens) == len(columns) - 1 and "redop" in columns and _number(tokens[3][0]) is not None:
            columns = tuple(c for c in columns if c != "redop")  # an empty redop (old alltoall rows)
        return columns

    def _more(self, loc: Locator, line: str, body: int, end: int | None = None) -> bool:
        """The next piece of a row that NCCL's own lines cut into pieces (``NCCL_DEBUG_SUBSYS=COLL``
        prints between nccl-tests' ``printf``s of one row); False when ``line`` is no such piece."""
        tokens, span, columns = self.partial
        more = [(t.group(0), loc.span(t.start(), t.end()))
                for t in TOKEN.finditer(line, body, len(line) if end is None else end)]
        if not more or any(_number(t) is None and t != "N/A" for t, _ in more):
            self.partial = None
            return False
        tokens = tokens + more
        if len(tokens) < len(columns):
            self.partial = (tokens, span, columns)
            return True
        self.partial = None
        self._add_row(tokens, span, columns)
        return True

    def glued(self, lineno: int, offset: int, line: str, body: int, cut: int) -> None:
        """``line[body:cut]`` is nccl-tests output that an NCCL line (from ``cut``) was printed onto."""
        loc = self.loc.at(lineno, offset)
        if self.partial is not None and self._more(loc, line, body, cut):
            return
        if ROW.match(line[body:cut] + " "):
            self._row(loc, line, body, cut)

    def _add_row(self, tokens, span, columns) -> bool:
        if len(tokens) < min(len(columns), 12):
            return False
        try:
            size, count = int(tokens[0][0]), int(tokens[1][0])
        except ValueError:
            return False
        run = self.runs[-1] if self.runs else None
        if run is None or run.avg_busbw is not None or run.out_of_bounds is not None:
            # a row after a run's footer starts another run (two tables pasted one after the other)
            run = self._current(self.loc, 0, "", fresh=True)
            run.start = span
        if not run.columns:
            run.columns = columns
        if len(run.rows) >= MAX_RECORDS:
            return True
        redop = tokens[3][0] if "redop" in columns else ""
        row = TestRow(size, count, tokens[2][0], redop, span, tokens[0][1])
        placement = None
        for name, (text, cell_span) in zip(columns, tokens):
            if name in TIMES:
                placement = row.oop if placement is None else row.ip
                name = "time"
            if placement is None or name not in ("time", "algbw", "busbw", "#wrong"):
                continue
            placement["wrong" if name == "#wrong" else name] = Cell(_number(text), cell_span)
        run.rows.append(row)
        return True

    def finish(self) -> list[TestsRun]:
        for run in self.runs:
            if run.program is None and self.name_program is not None:
                run.program = Fact(self.name_program.group(1), run.start)
        # a header with no result rows yet (a paste cut short) still says which NCCL ran: nccl-library=
        # (and an excerpt whose rows come with no header that names the columns)
        return [r for r in self.runs if r.rows or r.out_of_bounds is not None or r.avg_busbw is not None
                or r.library is not None or r.unread_row is not None]


def _number(text: str) -> float | None:
    if text.endswith("]"):   # "0[0]": a -prepend-rank prefix glued to the cell (lines.py)
        text = re.sub(r"\[\d+\]$", "", text)
    try:
        return float(text)
    except ValueError:
        return None


def _release(code: int) -> str | None:
    """``NCCL_VERSION_CODE`` as a release: X*1000+Y*100+Z up to 2.8, X*10000+Y*100+Z after
    (NVIDIA/nccl src/nccl.h.in: ``NCCL_VERSION(X,Y,Z) (((X) <= 2 && (Y) <= 8) ? … : …)``)."""
    if code >= 20900:
        return f"{code // 10000}.{code // 100 % 100}.{code % 100}"
    if 2000 <= code < 2900:
        return f"{code // 1000}.{code // 100 % 10}.{code % 100}"
    return None

