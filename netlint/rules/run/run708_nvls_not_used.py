from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.rules.base import Rule


class NvlsNotUsed(Rule):
    """NVLink SHARP (NVLS) or multi-node NVLink (MNNVL) expected by the inventory but not used by the run.

    What:
    - the inventory says `nvls: true` for the node group and the log says ``NVLS multicast support is
      not available on dev N`` (and the run did not set `NCCL_NVLS_ENABLE=0`);
    - the inventory's NVLink domain spans nodes (GB200 NVL72: `nvlink_domain` larger than the GPUs of a
      node), the communicator spans several nodes inside it, and NCCL's ``comm … nNodes 2 … MNNVL 0``
      says it did not use multi-node NVLink (and `NCCL_MNNVL_ENABLE=0` was not read).

    Why: without NVLS an all-reduce inside an NVSwitch system runs at the ring's NVLink bandwidth
    instead of the switch's reduction (~480 vs ~370 GB/s busbw on 8 H100); without MNNVL traffic
    between trays of an NVL72 rack goes through the NICs. Both fail silently: Fabric Manager not
    running, IMEX channels missing in the container, a driver without multicast.

    Bad:  ``NVLS multicast support is not available on dev 0`` with `nvls: true`
    Good: ``NVLS multicast support is available on dev 0``

    Fix: none automatic — start Fabric Manager (and IMEX for MNNVL), expose the IMEX channels to the
    container, or correct the inventory.

    Source: NVIDIA/nccl@68b54236 (v2.23.4-1) ``src/transport/nvls.cc`` L150-171 (``ncclNvlsInit``: the
    multicast support test and its INFO line), ``src/init.cc`` L1044 (``comm … MNNVL %d``), L794
    ("MNNVL is not supported on this system"); NVIDIA/nccl-tests#212 (NVLS ~480 GB/s busbw on 8 H100);
    NCCL User Guide, Environment Variables, NCCL_NVLS_ENABLE, NCCL_MNNVL_ENABLE.
    """

    code = "RUN708"
    name = "nvls-not-used"
    summary = "NVLS or multi-node NVLink expected by the inventory but not used"
    severity = Severity.WARNING
    tags = ("run", "nccl", "inventory")

    def check(self, ws) -> Iterator[Finding]:
        from netlint.run.intent import nccl_runs

        inv = ws.inventory
        if inv is None:
            return
        groups = list(inv.node_groups)
        nvls = [g.nvls for g in groups if getattr(g, "nvls", None) is not None]
        nvls_on = bool(nvls) and all(f.value for f in nvls) and len(nvls) == len(groups)
        domain = [g for g in groups if g.domain > g.gpus.value]
        for log, run in nccl_runs(ws):
            if nvls_on and not _off(run, "NCCL_NVLS_ENABLE"):
                no = [f for f in run.nvls_support if f.value is False]
                if no:
                    yield self.finding(f"NCCL found no NVLS multicast support ({len(no)} device line(s)), although "
                                       f"the inventory says nvls: true", no[0].span, key=f"{log.file}:nvls",
                                       related=(Related(nvls[0].span, "nvls: true"),))
            if domain and len(domain) == len(groups) and not _off(run, "NCCL_MNNVL_ENABLE"):
                g = domain[0]
                bad = [c for c in run.comms if c.mnnvl == 0 and c.nnodes > 1 and c.nranks <= g.domain]
                if bad:
                    c = bad[0]
                    span = g.nvlink_domain.span if g.nvlink_domain is not None else g.gpu.span
                    yield self.finding(f"NCCL did not use multi-node NVLink (MNNVL 0) for {c.nranks} ranks on {c.nnodes} "
                                       f"nodes inside one NVLink domain of {g.domain} GPUs: traffic between nodes goes "
                                       f"through the NICs", c.span, key=f"{log.file}:mnnvl",
                                       related=(Related(span, f"NVLink domain of {g.domain} GPUs"),))


def _off(run, name: str) -> bool:
    return any(e.name == name and e.value.strip() == "0" for e in run.env)
