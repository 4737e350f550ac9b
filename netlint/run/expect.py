"""What bus bandwidth the inventory's links should give a collective: the one place RUN710,
``netlint model`` and the calibration ask the fabric model (:mod:`netlint.fabric`) for it.

Bus bandwidth is nccl-tests' figure (NVIDIA/nccl-tests@a0b82b22 ``doc/PERFORMANCE.md``, "Bus bandwidth"
and "Summary"): ``busbw = algbw × factor`` with factor 2(n-1)/n for all-reduce, (n-1)/n for
reduce-scatter, all-gather and all-to-all, 1 for broadcast, reduce and send/recv, so that
``time = busbw-bytes / busbw`` where busbw-bytes = factor × the test's size column — the bytes each
rank sends (``src/all_reduce.cu`` L60-64, ``src/all_gather.cu`` L39-43, ``src/alltoall.cu`` L49-53 …).

The expected figure is the fabric model's time for those bytes (:func:`netlint.fabric.collectives.
collective_time`: latency per call plus bytes over the bottleneck link, ring / tree / NVLS) with the
links of the inventory's node group at the model's achievable fractions (:class:`Fractions`). One
communicator over N nodes: NCCL's rings cross every node once per channel, so the node's NICs together
carry what one rank sends and the bus bandwidth is bounded by the node's NIC aggregate — NCCL's own
tuner computes ``busBw = nChannels × bw`` with ``bw`` the inter-node bandwidth per channel
(NVIDIA/nccl@5067397c ``src/graph/tuning.cc`` L306, L324); an all-to-all sends (n-G)/(n-1) of its
bytes off the node, each GPU through its own share of the NICs
(:func:`netlint.fabric.placement.fabric_bytes`).
"""

from __future__ import annotations

from dataclasses import dataclass

COLLECTIVES = {"all_reduce_perf": "all-reduce", "all_gather_perf": "all-gather",
               "reduce_scatter_perf": "reduce-scatter", "alltoall_perf": "all-to-all",
               "broadcast_perf": "broadcast", "reduce_perf": "reduce", "sendrecv_perf": "send/recv"}
RING_LIKE = ("all-reduce", "reduce-scatter", "all-gather", "broadcast", "reduce")


def collective_of(program: str | None) -> str | None:
    """The fabric model's name of an nccl-tests program's collective (None: not modelled)."""
    return COLLECTIVES.get(program or "")


def busbw_factor(kind: str, n: int) -> float:
    """nccl-tests' correction factor from algbw to busbw (PERFORMANCE.md, "Summary")."""
    if n <= 1:
        return 1.0 if kind in ("broadcast", "reduce", "send/recv") else 0.0
    if kind == "all-reduce":
        return 2.0 * (n - 1) / n
    if kind in ("reduce-scatter", "all-gather", "all-to-all"):
        return (n - 1) / n
    return 1.0


@dataclass(frozen=True)
class Fractions:
    """Achievable share of the line rate: NIC (``hardware.NIC_ACHIEVABLE_FRACTION``) and NVLink (the
    catalog's effective over line rate, e.g. 370.8/450 on H100)."""

    nic: float
    nvlink: float


@dataclass(frozen=True)
class Node:
    """The inventory's node group as the expected figures need it."""

    gpu: object                   # netlint.hardware.Gpu
    gpus: int                     # GPUs per node
    nic_gbit: tuple[float, ...]   # line rate of each RDMA NIC
    nvls: bool | None
    domain: int = 0               # GPUs per NVLink domain (72 on GB200 NVL72: nodes share NVLink)

    @property
    def nic_line_gbps(self) -> float:
        """The node's NICs together, GB/s per direction at line rate."""
        return sum(g / 8 for g in self.nic_gbit)


def node_of(inventory) -> Node | None:
    from netlint.fabric.settings import node_shape

    shape = node_shape(inventory)
    if shape is None:
        return None
    return Node(shape["gpu"], shape["gpus"], tuple(shape["nic_gbit"]), shape.get("nvls"), shape["domain"] or 0)


def default_fractions(node: Node) -> Fractions:
    from netlint import hardware

    gpu = node.gpu
    return Fractions(hardware.NIC_ACHIEVABLE_FRACTION, gpu.nvlink_effective / gpu.nvlink_gbps)


def links(node: Node, fractions: Fractions | None = None):
    """The fabric model's per-GPU links of ``node`` at ``fractions`` (default: the model's own)."""
    from netlint.fabric.collectives import Links

    f = fractions or default_fractions(node)
    nic = node.nic_line_gbps * f.nic / max(1, node.gpus) if node.nic_gbit else None
    nvls = node.gpu.nvls_busbw if node.nvls is True else None
    return Links(nvlink=node.gpu.nvlink_gbps * f.nvlink, nvls=nvls, nic=nic)


def per_rank_bytes(kind: str, size: float, n: int) -> float:
    """The bytes each rank sends for one test row (nccl-tests' size column × busbw factor)."""
    return busbw_factor(kind, n) * size


def expected_time(kind: str, size: float, n: int, nodes: int, node: Node,
                  fractions: Fractions | None = None) -> float | None:
    """Seconds the fabric model gives one call of ``kind`` on a row of ``size`` bytes."""
    from netlint.fabric.collectives import collective_time
    from netlint.fabric.placement import Group, fabric_bytes

    per_rank = per_rank_bytes(kind, size, n)
    if per_rank <= 0:
        return None
    if nodes > 1 and node.domain > node.gpus and n <= node.domain:
        nodes = 1        # one multi-node NVLink domain (MNNVL): no NIC on the path
    fabric, ppn = 0.0, max(1, n // max(1, nodes))
    if nodes > 1:
        if kind in RING_LIKE:
            fabric = per_rank / ppn
        elif kind == "all-to-all":
            fabric = fabric_bytes("all-to-all", per_rank, Group("x", n, 1), ppn)[1]
        else:
            fabric = per_rank
    t, _ = collective_time(kind, per_rank, fabric, n, nodes, 1, links(node, fractions))
    return t if t else None


def expected_busbw(kind: str, size: float, n: int, nodes: int, node: Node,
                   fractions: Fractions | None = None) -> float | None:
    """GB/s of bus bandwidth the model expects for one row (None when a link is unknown)."""
    t = expected_time(kind, size, n, nodes, node, fractions)
    return per_rank_bytes(kind, size, n) / t / 1e9 if t else None


def step_time(job, inventory, mfu: float, fractions: Fractions | None = None) -> float | None:
    """The fabric model's step time (seconds) of a training job on the inventory's node group, with
    the links at ``fractions`` — how a calibration moves the modelled step."""
    import dataclasses

    from netlint.fabric import settings as C
    from netlint.fabric import shape as S
    from netlint.fabric import step as ST

    node, shape = node_of(inventory), C.node_shape(inventory)
    split = C.split_of(job)
    model, _ = S.from_job(job)
    if node is None or shape is None or split is None or model is None or not split.microbatches:
        return None
    hw = C.hardware_of(job, shape, mfu)
    if fractions is not None:
        new = links(node, fractions)
        hw = dataclasses.replace(hw, links=dataclasses.replace(hw.links, nvlink=new.nvlink, nic=new.nic))
    est = ST.evaluate(model, split, C.framework_of(job), hw)
    return est.step_s if est is not None else None
