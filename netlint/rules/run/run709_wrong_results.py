from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Severity
from netlint.rules.base import Rule
from netlint.rules.run._common import fmt_bytes


class WrongResults(Rule):
    """nccl-tests found wrong values: the collective returned corrupt data.

    What: a row of the result table with a ``#wrong`` count above 0 (out-of-place or in-place), or the
    footer ``# Out of bounds values : N FAILED``. The finding is at the first non-zero ``#wrong`` cell and
    counts the rows that have one.

    Why: nccl-tests checks every element against the expected result; a wrong element is silent data
    corruption in training (a bad NIC or cable, a GPU memory error, a protocol defect of the release:
    see RUN706 and the advisories), not a performance issue.

    Bad:  ``    1048576   262144   float   sum   -1   85.2   12.31   23.08   1024 …``
    Good: ``#wrong`` 0 in every row and ``Out of bounds values : 0 OK``

    Fix: none automatic — rerun on subsets of nodes to find the faulty one, check the release's
    advisories, try ``NCCL_PROTO`` without LL128.

    Source: NVIDIA/nccl-tests@a0b82b22 ``src/util.cu`` L497-510 (``#wrong``: ``wrongElts``), L777 (``Out of
    bounds values``), ``src/common.cu`` L440-470 (the per-element check); NVIDIA/nccl-tests README
    ("-c <check>": check correctness of results).
    """

    code = "RUN709"
    name = "wrong-results"
    summary = "nccl-tests reported wrong values (#wrong > 0)"
    severity = Severity.ERROR
    tags = ("run", "nccl-tests")

    def check(self, ws) -> Iterator[Finding]:
        from netlint.run.intent import runs

        for log in runs(ws):
            for i, test in enumerate(log.tests):
                bad = [(r, c) for r in test.rows for c in r.wrong()]
                name = test.program.value if test.program is not None else "nccl-tests"
                if bad:
                    row, cell = bad[0]
                    rows = len({id(r) for r, _ in bad})
                    yield self.finding(f"{name}: {rows} of {len(test.rows)} sizes returned wrong elements (#wrong "
                                       f"{cell.value:g} at {fmt_bytes(row.size)}): the collective corrupted data",
                                       cell.span, key=f"{log.file}:{i}:wrong")
                elif test.out_of_bounds is not None and test.out_of_bounds.value > 0:
                    yield self.finding(f"{name}: {test.out_of_bounds.value} out-of-bounds values: the collective "
                                       f"corrupted data", test.out_of_bounds.span, key=f"{log.file}:{i}:oob")
