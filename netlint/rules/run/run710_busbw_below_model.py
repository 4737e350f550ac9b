from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.rules.base import Rule
from netlint.rules.run._common import fmt_bytes

DEFAULT_FRACTION = 0.25


class BusbwBelowModel(Rule):
    """nccl-tests measured a bus bandwidth far below what the inventory's links should give.

    What: for an nccl-tests run of a modelled collective (all_reduce, all_gather, reduce_scatter,
    alltoall, broadcast, reduce, sendrecv) on 2 or more ranks, the peak bus bandwidth (busbw column)
    among the sizes of 64 MiB or more is compared with the fabric model's figure for the same collective,
    size, rank count and node count (hosts of the ``#  Rank`` lines) on the inventory's node group:
    the GPUs' NVLink inside a node, the node's RDMA NICs across nodes, at the model's achievable
    fractions. Reported when the measured figure is below the expected one by more than `fraction`
    (default 0.25; `[rules.RUN710] fraction = 0.1` to be stricter), with both figures. Silent when
    the test's GPUs are not the inventory's.

    Why: nccl-tests' bus bandwidth is defined so that it compares with the hardware's link rate
    whatever the rank count; far below it, a rail is down, GPUDirect RDMA is off, traffic takes the
    wrong NIC or the fabric is congested — the model turns "is this normal?" into a number.

    Bad:  all_reduce_perf, 2 nodes × 8 H100 with 8×400G: peak busbw 185 GB/s (model 370 GB/s)
    Good: 335 GB/s (90%)

    Fix: none automatic; `netlint model --calibrate RESULTS` fits the model's fractions to a run that
    is known to be healthy.

    Source: NVIDIA/nccl-tests@a0b82b22 ``doc/PERFORMANCE.md`` ("Bus bandwidth", "Summary": busbw =
    algbw × 2(n-1)/n for all-reduce, (n-1)/n for reduce-scatter/all-gather/all-to-all, 1 otherwise),
    ``src/all_reduce.cu`` L60-64; NVIDIA/nccl@5067397c ``src/graph/tuning.cc`` L306, L324 (``busBw =
    nChannels × bw``); the fabric model's link figures (``netlint/hardware.py``: NVIDIA/nccl-tests#212,
    #290, #29; NVIDIA/nccl ``src/graph/topo.h``).
    """

    code = "RUN710"
    name = "busbw-below-model"
    summary = "nccl-tests bus bandwidth far below what the inventory's links should give"
    severity = Severity.WARNING
    tags = ("run", "nccl-tests", "inventory", "bandwidth")

    def check(self, ws) -> Iterator[Finding]:
        from netlint.run.expect import node_of
        from netlint.run.intent import runs
        from netlint.run.measure import compare, peak_row, same_gpu

        node = node_of(ws.inventory)
        if node is None:
            return
        fraction = _fraction(ws)
        for log in runs(ws):
            for i, test in enumerate(log.tests):
                if not same_gpu(test, node):
                    continue
                c = compare(test, node)
                if c is None or c.measured >= (1 - fraction) * c.expected:
                    continue
                nics = f"{len(node.nic_gbit)}×{max(node.nic_gbit):g}G NICs and " if node.nic_gbit and c.nodes > 1 else ""
                cell = c.row.busbw_cell()
                name = test.program.value
                best = "peak bus bandwidth" if c.row is peak_row(test) else "best bus bandwidth from 64 MiB up"
                msg = (f"{name} on {c.nodes} node(s), {c.ranks} ranks: {best} {c.measured:.1f} GB/s at "
                       f"{fmt_bytes(c.row.size)}, but the inventory's {nics}{node.gpu.name} NVLink should give "
                       f"{c.expected:.1f} GB/s ({c.ratio:.0%}; reported below {1 - fraction:.0%})")
                related = ()
                if ws.inventory is not None and ws.inventory.node_groups:
                    g = ws.inventory.node_groups[0]
                    related = (Related(g.gpu.span, f"gpu: {g.gpu.value}"),)
                yield self.finding(msg, cell.span, key=f"{log.file}:{i}:busbw", related=related)


def _fraction(ws) -> float:
    try:
        value = float(ws.config.rule_options("RUN710").get("fraction", DEFAULT_FRACTION))
    except (TypeError, ValueError, AttributeError):
        return DEFAULT_FRACTION
    return value if 0 < value < 1 else DEFAULT_FRACTION
