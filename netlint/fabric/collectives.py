"""Time of one NCCL collective: a latency term per call plus the bytes each rank sends over its
bottleneck bandwidth (the α–β model NCCL's own tuner uses: ``time = lat + nBytes / bw``).

Bandwidth. nccl-tests defines bus bandwidth so that ``time = bytes each rank sends / busbw`` for
every collective (NVIDIA/nccl-tests ``doc/PERFORMANCE.md`` at 03a204a1: 2(n-1)/n·S for all-reduce,
(n-1)/n·S for reduce-scatter, all-gather and all-to-all). Inside an NVLink domain busbw is the GPU's
achievable NVLink rate, or the NVLink SHARP (NVLS) all-reduce figure
(:attr:`netlint.hardware.Gpu.nvls_busbw`) where the inventory says the nodes have NVLS (``nodes[].nvls``); across nodes it is the GPU's share of its node's NICs,
applied to the bytes that leave the node (hierarchical collectives, :mod:`netlint.fabric.placement`).
Tree all-reduce runs at 0.92 of the ring's bus bandwidth (NVIDIA/nccl@5067397c
``src/graph/tuning.cc`` L330-331).

Latency, Simple protocol, µs (same file): base 8.4 for ring and tree, 0 for NVLS (L149-155); per
hop 3.4 (ring) / 4.0 (tree) / 25 (NVLS) over NVLink and 14 / 14 / 18 over the network (L156-175).
Ring: ``base + (nsteps - nInterSteps)·intra + nInterSteps·inter`` with nsteps 2(n-1) for
all-reduce and n-1 for reduce-scatter / all-gather, nInterSteps 2(N-1) or N-1 over N nodes
(L393-413); tree all-reduce: ``base + 2·((n/N - 1)·intra + log2(N)·inter)`` (L414-417); NVLS: its
hop latency (L424-426). All-to-all and send/recv are modelled as one ring step per call. NCCL picks
the fastest algorithm for the message; so does :func:`collective_time` (per call size).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

BASE_US = {"ring": 8.4, "tree": 8.4, "nvls": 0.0}
NVLINK_US = {"ring": 3.4, "tree": 4.0, "nvls": 25.0}
NET_US = {"ring": 14.0, "tree": 14.0, "nvls": 18.0}
TREE_BW = 0.92


@dataclass(frozen=True)
class Links:
    """Bandwidths one GPU sees, GB/s per direction."""

    nvlink: float | None = None     # achievable NVLink rate
    nvls: float | None = None       # all-reduce busbw with NVLink SHARP inside the domain
    nic: float | None = None        # the GPU's share of its node's achievable NIC bandwidth


def latency_us(kind: str, algo: str, n: int, nodes: int) -> float:
    """Latency of one call of ``kind`` over n ranks on ``nodes`` nodes (tuning.cc L384-428)."""
    if n <= 1:
        return 0.0
    nodes = max(1, nodes)
    if kind in ("all-to-all", "send/recv"):
        return BASE_US["ring"] + (NET_US["ring"] if nodes > 1 else NVLINK_US["ring"])
    if algo == "nvls":
        return NVLINK_US["nvls"] + (NET_US["nvls"] if nodes > 1 else 0.0)
    if algo == "tree":
        ppn = max(1, n // nodes)
        return BASE_US["tree"] + 2 * ((ppn - 1) * NVLINK_US["tree"] + math.log2(nodes) * NET_US["tree"])
    steps = 2 * (n - 1) if kind == "all-reduce" else n - 1
    inter = 0 if nodes == 1 else (2 * (nodes - 1) if kind == "all-reduce" else nodes - 1)
    return BASE_US["ring"] + (steps - inter) * NVLINK_US["ring"] + inter * NET_US["ring"]


def collective_time(kind: str, per_rank: float, fabric: float, n: int, nodes: int, calls: int,
                    links: Links) -> tuple[float | None, str]:
    """(seconds, algorithm) for ``calls`` calls that together send ``per_rank`` bytes from each rank,
    ``fabric`` of them through the NICs; None when a needed bandwidth is unknown."""
    if n <= 1 or per_rank <= 0:
        return 0.0, "-"
    calls = max(1, calls)
    options: list[tuple[str, float]] = []        # (algorithm, seconds of bandwidth)
    if nodes <= 1:
        if not links.nvlink:
            return None, "-"
        options.append(("ring", per_rank / (links.nvlink * 1e9)))
        if kind == "all-reduce" and links.nvls:
            options.append(("nvls", per_rank / (links.nvls * 1e9)))
    else:
        if not links.nic:
            return None, "-"
        intra = per_rank / (links.nvlink * 1e9) if links.nvlink else 0.0
        net = fabric / (links.nic * 1e9)
        options.append(("ring", max(intra, net)))
        if kind == "all-reduce":
            options.append(("tree", max(intra, net / TREE_BW)))
    best = min(options, key=lambda o: calls * latency_us(kind, o[0], n, nodes) * 1e-6 + o[1])
    return calls * latency_us(kind, best[0], n, nodes) * 1e-6 + best[1], best[0]
