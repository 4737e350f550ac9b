"""Where each parallel group's ranks sit: Megatron's rank order on node-major launchers.

NVIDIA/Megatron-LM@d98e8a64: default order ``tp-cp-ep-dp-pp`` (megatron/core/parallel_state.py L617;
``--use-tp-pp-dp-mapping`` gives ``tp-cp-ep-pp-dp``, megatron/training/initialize.py L395) — TP varies fastest
(consecutive ranks), then CP, DP, PP outermost; the expert grid uses ``tp-ep-dp-pp`` with tp = ETP.
Launchers put ranks ``n·G … n·G+G-1`` on node n (torchrun blocks of nproc_per_node; srun block
distribution). A group of ``size`` members with ``stride`` between them therefore spans
``nodes_spanned`` nodes; it stays inside an NVLink domain iff every member shares the domain.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Group:
    dimension: str   # tp, cp, dp, pp, ep, edp
    size: int
    stride: int

    def members(self, first: int = 0) -> list[int]:
        return [first + k * self.stride for k in range(self.size)]


def dense_groups(tp: int, cp: int, dp: int, pp: int) -> dict[str, Group]:
    return {"tp": Group("tp", tp, 1), "cp": Group("cp", cp, tp), "dp": Group("dp", dp, tp * cp),
            "pp": Group("pp", pp, tp * cp * dp)}


def expert_groups(etp: int, ep: int, pp: int, world: int) -> dict[str, Group]:
    edp = max(1, world // max(1, etp * ep * pp))
    return {"ep": Group("ep", ep, etp), "edp": Group("edp", edp, etp * ep)}


def domains_spanned(group: Group, domain: int) -> int:
    """Distinct NVLink domains (blocks of ``domain`` consecutive ranks) the first group touches;
    with the regular grids above every group of a dimension looks the same."""
    return len({r // domain for r in group.members()}) if domain > 0 else group.size


def ranks_per_domain(group: Group, domain: int) -> int:
    n = domains_spanned(group, domain)
    return max(1, group.size // n)


def inside(group: Group, domain: int) -> bool:
    return group.size <= 1 or domains_spanned(group, domain) == 1


def group_of(dim: str, size: int, tp: int, cp: int, dp: int, etp: int, ep: int, replicate: int = 1) -> Group:
    """The first group of a dimension's collective on the rank grid above (size may be a sub-group:
    FSDP's shard and replicate groups of DP, Megatron's TP×EP group of the allgather dispatcher)."""
    if dim == "TP" or dim == "ETP":
        return Group(dim.lower(), size, 1)
    if dim == "CP":
        return Group("cp", size, tp)
    if dim == "PP":
        return Group("pp", size, tp * cp * dp)
    if dim == "DP":   # gradients are reduced over DP×CP (Megatron's dp_cp group; torchtitan's dp_shard_cp)
        if replicate > 1 and size == replicate:        # torchtitan HSDP: replicas of one shard
            return Group("dp", size, tp * cp * dp // replicate)
        return Group("dp", size, tp)
    if dim == "EP":
        return Group("ep", size, 1 if size == etp * ep and etp > 1 else etp)
    return Group("edp", size, etp * ep)


def fabric_bytes(kind: str, per_rank: float, group: Group, domain: int) -> tuple[int, float]:
    """(NVLink domains the group spans, bytes per GPU that leave its node). Hierarchical collectives:
    a node sends 2(N-1)/N of an all-reduce buffer, (N-1)/N of a reduce-scatter / all-gather array,
    shared by its r ranks of the group; an all-to-all sends (n-r)/(n-1) of its bytes off the node; a
    ring of send/recv crosses N of its n hops."""
    n = group.size
    n_dom = domains_spanned(group, domain)
    if n <= 1 or n_dom <= 1:
        return max(1, n_dom), 0.0
    r = ranks_per_domain(group, domain)
    if kind == "all-to-all":
        return n_dom, per_rank * (n - r) / (n - 1)
    if kind == "send/recv":
        return n_dom, per_rank * (1.0 if r == 1 else n_dom / n)
    return n_dom, per_rank * ((n_dom - 1) / n_dom / r) / ((n - 1) / n)
