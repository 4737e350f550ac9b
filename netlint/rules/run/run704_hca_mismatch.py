from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.rules.base import Rule
from netlint.rules.run._common import once, related_var


class HcaMismatch(Rule):
    """The RDMA devices NCCL used are not the ones the inventory and the NCCL env name.

    What: from the log's ``NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE …`` line(s):
    - a device the inventory does not list among the node group's RDMA NICs (a storage or front-end
      port, a bond) — warning;
    - a device the env's `NCCL_IB_HCA` does not select (the env that ran was not the repo's) — error;
    - a device of the inventory that no host used, and that `NCCL_IB_HCA` (the env's, else the value
      the log says NCCL read) does not exclude (a port down, a device missing in the container) —
      warning: the job runs on fewer rails;
    - ports of the other link layer (``/IB`` on a RoCE fabric, ``/RoCE`` on InfiniBand) — error.

    Why: each rail's NIC carries its GPUs' share of the traffic; a missing rail halves a GPU pair's
    bandwidth or sends it across the PCIe root, a foreign port mixes storage and training traffic.

    Bad:  ``NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_4:1/RoCE`` (inventory: mlx5_0 … mlx5_3)
    Good: the inventory's devices, all of them

    Fix: none automatic — `NCCL_IB_HCA` with the inventory's devices, or correct the inventory.

    Source: NVIDIA/nccl@68b54236 (v2.23.4-1) ``src/transport/net_ib.cc`` L523-669 (``ncclIbInit``: devices
    matched against ``NCCL_IB_HCA``, active ports only, the ``NET/IB : Using`` line with each port's link
    layer); NCCL User Guide, Environment Variables, NCCL_IB_HCA.
    """

    code = "RUN704"
    name = "hca-mismatch"
    summary = "RDMA devices used differ from the inventory's or NCCL_IB_HCA's"
    severity = Severity.WARNING
    tags = ("run", "nccl", "inventory")

    def check(self, ws) -> Iterator[Finding]:
        from netlint.nccl import lists
        from netlint.run.intent import env_for, nccl_runs, transport, transport_span

        groups = [] if ws.inventory is None else list(ws.inventory.node_groups)
        inv_nics = {n.hca.value: n for g in groups for n in g.nics}
        # which group a log's host belongs to is not known: "missing" only when every group has the same NICs
        same = len({frozenset(n.hca.value for n in g.nics) for g in groups}) == 1
        fabric = transport(ws)
        for log, run in nccl_runs(ws):
            ports = once(run.ib_ports, lambda p: (p.hca, p.port))
            if not ports:
                continue
            env = env_for(ws, log) or {}
            hca_var = env.get("NCCL_IB_HCA")
            hca_list = lists.parse(hca_var.known) if hca_var is not None and hca_var.known else None
            for p in ports:
                if hca_list is not None and not hca_list.selects(p.hca, p.port):
                    yield self.finding(f"NCCL used {p.hca}:{p.port}, which NCCL_IB_HCA={hca_var.known} does not "
                                       f"select: the run's environment was not this one", p.span,
                                       key=f"{log.file}:hca-env:{p.hca}", related=related_var(hca_var),
                                       severity=Severity.ERROR)
                elif inv_nics and p.hca not in inv_nics:
                    yield self.finding(f"NCCL used {p.hca}:{p.port}/{p.link}, which is not among the inventory's "
                                       f"RDMA NICs ({', '.join(sorted(inv_nics))})", p.span,
                                       key=f"{log.file}:hca-inv:{p.hca}")
            layer = {"infiniband": "IB", "roce": "RoCE"}.get(fabric or "")
            wrong = [p for p in ports if layer and p.link != layer]
            if wrong:
                yield self.finding(f"{len(wrong)} port(s) NCCL used are {wrong[0].link} ({wrong[0].hca}:{wrong[0].port}/"
                                   f"{wrong[0].link}), but the inventory's fabric is {fabric}", wrong[0].span,
                                   key=f"{log.file}:link", severity=Severity.ERROR,
                                   related=(Related(transport_span(ws), f"transport: {fabric}"),)
                                   if transport_span(ws) else ())
            used = {p.hca for p in ports}
            read = run.env_reads("NCCL_IB_HCA")
            chosen = hca_list or (lists.parse(read[0].value) if read and read[0].value else None)
            missing = [n for name, n in sorted(inv_nics.items()) if name not in used and
                       (chosen is None or chosen.selects(name, n.port.value if n.port is not None else None))]
            if missing and same:
                names = ", ".join(n.hca.value for n in missing)
                yield self.finding(f"NCCL did not use the inventory's {names} ({len(used & set(inv_nics))} of "
                                   f"{len(inv_nics)} RDMA NICs in use): a port down or a device not visible to "
                                   f"the ranks", ports[0].span, key=f"{log.file}:hca-missing",
                                   related=(Related(missing[0].hca.span, f"hca: {missing[0].hca.value}"),))
