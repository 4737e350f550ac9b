"""Fit the fabric model's achievable fractions (NIC, NVLink) to measured nccl-tests results.

Each row of each test (size ≥ :data:`FROM_SIZE`, a modelled collective, ranks and hosts known) is a
point: measured time (the time column of the placement with the better bus bandwidth) against the
model's time for that collective, size, rank and node count (:func:`netlint.run.expect.expected_time`).
The fractions minimise the squared log error, by a golden-section search in [0.05, 1]: NVLink over the
single-node points, then the NIC over the multi-node points with that NVLink. A fraction that no point depends on (no multi-node test for
the NIC, no NVLink-bound test for NVLink) is reported as not determined and keeps the model's value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

FROM_SIZE = 64 << 20   # the bandwidth regime: below it latency and protocol choice dominate (measure.py)
LOW, HIGH = 0.05, 1.0


@dataclass
class Point:
    test: object
    row: object
    kind: str
    ranks: int
    nodes: int
    measured_s: float
    measured_busbw: float


@dataclass
class Fit:
    default: object                    # Fractions
    fitted: object                     # Fractions (undetermined ones = default)
    determined: dict[str, bool] = field(default_factory=dict)
    points: list[Point] = field(default_factory=list)
    error: float | None = None         # RMS of log(model/measured) at the fit


def points_of(tests) -> list[Point]:
    from netlint.run.measure import shape_of

    out = []
    for test in tests:
        kind, shape = test.collective, shape_of(test)
        if kind is None or shape is None or shape[0] < 2:
            continue
        for row in test.rows:
            cells = [c for c in (row.oop, row.ip) if c.get("busbw") and c["busbw"].value and c.get("time")
                     and c["time"].value]
            if row.size < FROM_SIZE or not cells:
                continue
            best = max(cells, key=lambda c: c["busbw"].value)
            out.append(Point(test, row, kind, shape[0], shape[1], best["time"].value * 1e-6, best["busbw"].value))
    return out


def _error(points, node, fractions) -> float:
    from netlint.run.expect import expected_time

    total = 0.0
    for p in points:
        t = expected_time(p.kind, p.row.size, p.ranks, p.nodes, node, fractions)
        if not t:
            return math.inf
        total += math.log(t / p.measured_s) ** 2
    return total


def _golden(f, lo: float, hi: float, tol: float = 1e-5) -> float:
    g = (math.sqrt(5) - 1) / 2
    a, b = lo, hi
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(c), f(d)
    while b - a > tol:
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(d)
    return (a + b) / 2


def fit(tests, node) -> Fit | None:
    from dataclasses import replace

    from netlint.run.expect import default_fractions

    points = points_of(tests)
    default = default_fractions(node)
    if not points:
        return None
    # Two stages, so the data decides each fraction once: NVLink from the tests inside one node (no NIC
    # on their path), then the NIC from the multi-node tests with that NVLink figure. (Fitted together,
    # a multi-node test whose NIC and NVLink bounds are close — H100 with 8x400G: 376 vs 371 GB/s —
    # could be explained by either.)
    cur = default
    determined = {}
    for name, subset in (("nvlink", [p for p in points if p.nodes == 1]), ("nic", [p for p in points if p.nodes > 1])):
        determined[name] = False
        if not subset:
            continue
        best = _golden(lambda x: _error(subset, node, replace(cur, **{name: x})), LOW, HIGH)
        trial = replace(cur, **{name: best})
        at = _error(subset, node, trial)
        near = [_error(subset, node, replace(trial, **{name: min(HIGH, best * k)})) for k in (0.97, 1.03)]
        # a flat error near the fit: this data does not depend on the fraction; the model's value stays
        if math.isfinite(at) and any(abs(e - at) > 1e-6 * max(1.0, at) + 1e-9 for e in near):
            cur, determined[name] = trial, True
    err = _error(points, node, cur)
    rms = math.sqrt(err / len(points)) if math.isfinite(err) else None
    return Fit(default, cur, determined, points, rms)
