from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.nccl.fixes import value_fix
from netlint.rules.base import Rule
from netlint.rules.xc._common import list_settings, rail_nics, summary, transport


class IbHcaMissingRails(Rule):
    """`NCCL_IB_HCA` selects fewer HCAs than the inventory's nodes have rails.

    What: the inventory lists each node group's NICs and their rails; the devices `NCCL_IB_HCA`
    selects (including or excluding, prefix or exact) are counted per group. Fewer selected rail
    HCAs than rails, in every node group, is reported. A list that matches no inventory HCA at all
    is XC602's.

    Why: NCCL uses only the HCAs it is given, so the other rails carry no traffic: a node with 8
    rails and 4 HCAs listed has half its scale-out bandwidth; a list that leaves none (`^mlx5` on
    ConnectX nodes) is an error: the IB transport finds no device and NCCL runs over TCP sockets.
    HCAs are also paired by position across nodes, so every node should list all rail HCAs in the
    same order.

    Not on an EFA fabric (inventory `transport: efa`): NCCL's IB transport skips EFA devices (their
    link layer is neither InfiniBand nor Ethernet) and the aws-ofi-nccl plugin does not read
    `NCCL_IB_HCA`.

    Bad:  `NCCL_IB_HCA==mlx5_0,mlx5_1,mlx5_2,mlx5_3` (8 rails)
    Good: `NCCL_IB_HCA==mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7`

    Fix: the inventory's rail HCAs in rail order (unsafe: the job then uses more NICs).

    Source: NVIDIA/nccl@5067397c (2.30.7) `src/transport/net_ib/init.cc` L319-370 and
    `src/misc/utils.cc` L218-240 (only the HCAs the list selects are opened); NCCL User Guide,
    Environment Variables: NCCL_IB_HCA; getainode/ainode#89 (HCAs listed in different orders on two
    nodes: `ibv_modify_qp` … 110 Connection timed out);
    NVIDIA/nccl@5067397c `src/transport/net_ib/init.cc` L364 (ports whose link layer is neither IB
    nor Ethernet are skipped); torvalds/linux@e51b3c59 `drivers/infiniband/hw/efa/efa_verbs.c`
    `efa_port_link_layer` (`IB_LINK_LAYER_UNSPECIFIED`); aws/aws-ofi-nccl@2daf7d30 (reads no
    `NCCL_IB_*` variable; its settings are `OFI_NCCL_*`, `include/nccl_ofi_param.h`).
    """

    code = "XC603"
    name = "ib-hca-missing-rails"
    summary = "NCCL_IB_HCA selects fewer HCAs than the nodes have rails"
    severity = Severity.WARNING
    tags = ("nccl", "inventory", "cross-file")

    def check(self, ws) -> Iterator[Finding]:
        inv = ws.inventory
        if inv is None or transport(ws) == "efa":
            return
        groups = [g for g in inv.node_groups if g.nics]
        if not groups:
            return
        all_hcas = {n.hca.value for g in groups for n in g.nics}
        for env, var, lst in list_settings(ws, "NCCL_IB_HCA"):
            if not lst.exclude and not any(lst.entry_matches(e, h) for e in lst.entries for h in all_hcas):
                continue
            lost = []
            for g in groups:
                rails = rail_nics(g)
                chosen = [n for n in rails if lst.selects(n.hca.value, n.port.value if n.port is not None else 1)]
                if len(chosen) >= len(rails):
                    break
                lost.append((g, rails, chosen))
            else:
                g, rails, chosen = lost[0]
                missing = [n for n in rails if n not in chosen]
                names = [n.hca.value for n in rails]
                collide = any(a != b and b.startswith(a) for a in names for b in all_hcas)
                new = ("=" if lst.exact or collide else "") + ",".join(names)
                if chosen:
                    msg = (f"NCCL_IB_HCA={var.known} selects {len(chosen)} of the {len(rails)} rail HCAs the "
                           f"inventory lists (missing {summary([n.hca.value for n in missing])}): those rails "
                           f"carry no NCCL traffic")
                else:   # `^mlx5` on an all-mlx5 node: IB finds no device (init.cc "No device found")
                    msg = (f"NCCL_IB_HCA={var.known} selects none of the {len(rails)} rail HCAs the inventory "
                           f"lists: NCCL's IB transport opens no device ('NET/IB : No device found') and, "
                           f"unless an RDMA device outside the inventory matches, NCCL falls back to TCP sockets")
                yield self.finding(
                    msg, var.span, key="NCCL_IB_HCA", severity=None if chosen else Severity.ERROR,
                    fix=value_fix(var, new, ws, "list every rail HCA of the inventory", safe=False),
                    related=(Related(missing[0].hca.span, f"inventory NIC {missing[0].hca.value}"),))
