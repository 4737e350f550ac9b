from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Severity
from netlint.nccl.fixes import piece_span, value_fix
from netlint.rules.base import Rule
from netlint.nearest import distance
from netlint.rules.xc._common import inventory_nics, inventory_related, list_settings, summary, transport


class IbHcaUnknownDevice(Rule):
    """`NCCL_IB_HCA` names a device no node of the inventory has, or a prefix that takes more.

    What: each entry of an including `NCCL_IB_HCA` list is matched against the inventory's HCAs with
    NCCL's rules (prefix match unless the list starts with `=`; the `:port` must match the NIC's
    port). An entry matching none is an error (with a did-you-mean for typos such as `mlxl5_7`). An
    entry that names one HCA exactly but, being a prefix, also selects others the list does not name
    (`mlx5_1` also takes `mlx5_10`..`mlx5_17`) is a warning.

    Why: NCCL silently skips devices it cannot find; with none left it logs "NET/IB : No device
    found" and falls back to TCP sockets (unless `NCCL_NET=IB`). A prefix that takes extra devices
    puts storage or front-end NICs into the rings.

    Not on an EFA fabric (inventory `transport: efa`): NCCL's IB transport skips EFA devices (their
    link layer is neither InfiniBand nor Ethernet) and the aws-ofi-nccl plugin does not read
    `NCCL_IB_HCA`.

    Bad:  `NCCL_IB_HCA=mlx5_0,mlx5_1,mlxl5_2` (inventory: mlx5_0..mlx5_7)
    Good: `NCCL_IB_HCA==mlx5_0,mlx5_1,mlx5_2`

    Fix: the closest inventory HCA for a typo, when exactly one HCA is closest (a tie such as
    `mlx5_12` between unlisted `mlx5_1` and `mlx5_2` gets both suggestions and no fix); `=` (exact match) for a prefix collision. Unsafe: the
    job then uses other devices.

    Source: NVIDIA/nccl@5067397c (2.30.7) `src/transport/net_ib/init.cc` L319-370 (`NCCL_IB_HCA`:
    `parseStringList`, then `matchIfList`, prefix unless `=`, the port compared), L470 ("NET/IB : No
    device found."), `src/misc/utils.cc` L218-240; `src/plugin/net.cc` L321-351 (the next plugin,
    Socket, is used unless `NCCL_NET` names one); NCCL User Guide, Environment Variables:
    NCCL_IB_HCA; NVIDIA/nccl#952, #236; llm-d/llm-d-benchmark#1862 (typo `mlxl5_7`);
    NVIDIA/nccl@5067397c `src/transport/net_ib/init.cc` L364 (ports whose link layer is neither IB
    nor Ethernet are skipped); torvalds/linux@e51b3c59 `drivers/infiniband/hw/efa/efa_verbs.c`
    `efa_port_link_layer` (`IB_LINK_LAYER_UNSPECIFIED`); aws/aws-ofi-nccl@2daf7d30 (reads no
    `NCCL_IB_*` variable; its settings are `OFI_NCCL_*`, `include/nccl_ofi_param.h`).
    """

    code = "XC602"
    name = "ib-hca-unknown-device"
    summary = "NCCL_IB_HCA names a device the inventory's nodes do not have"
    severity = Severity.ERROR
    tags = ("nccl", "inventory", "cross-file")

    def check(self, ws) -> Iterator[Finding]:
        nics = inventory_nics(ws)
        if not nics or transport(ws) == "efa":
            return
        hcas = sorted({n.hca.value for _, n in nics})
        ports = {n.hca.value: (n.port.value if n.port is not None else 1) for _, n in nics}
        first = nics[0][1].hca.span
        for env, var, lst in list_settings(ws, "NCCL_IB_HCA"):
            named = {e.name for e in lst.entries}
            for e in lst.entries:
                matched = [h for h in hcas if lst.entry_matches(e, h, ports[h])]
                span = piece_span(var, e.start, e.end)
                if not matched:
                    if lst.exclude:
                        continue
                    unlisted = [h for h in hcas if h not in named]
                    hints = _nearest(e.name, unlisted)
                    hint = hints[0] if len(hints) == 1 else None
                    msg = (f"NCCL_IB_HCA lists {e.text}, which no node in the inventory has "
                           f"(HCAs: {summary(hcas)})")
                    fix = None
                    if len(hints) > 1:
                        msg += f"; did you mean {' or '.join(hints)}?"
                    elif hint:
                        msg += f"; did you mean {hint}?"
                        new = var.known[:e.start] + hint + e.text[len(e.name):] + var.known[e.end:]
                        fix = value_fix(var, new, ws, f"write {hint}", safe=False)
                    yield self.finding(msg, span, key=f"NCCL_IB_HCA:{e.name}", fix=fix,
                                       related=inventory_related(first, "the inventory's HCAs"))
                elif not lst.exact and not lst.exclude and e.name in hcas:
                    extra = [h for h in matched if h != e.name and h not in named]
                    if not extra:
                        continue
                    fix = None
                    if all(x.name in hcas for x in lst.entries):
                        fix = value_fix(var, "=" + var.known, ws, "match HCA names exactly (=)", safe=False)
                    yield self.finding(
                        f"NCCL_IB_HCA entry {e.name} is a prefix: it also selects {summary(extra)}, which the "
                        f"inventory has and the list does not name; start the list with '=' for exact names",
                        span, key=f"NCCL_IB_HCA:{e.name}", fix=fix, severity=Severity.WARNING,
                        related=inventory_related(first, "the inventory's HCAs"))


def _nearest(name: str, candidates: list[str]) -> list[str]:
    """The candidates closest to ``name`` (within 2 edits, case kept); several on a tie."""
    scored = sorted((distance(name, c, 2), c) for c in candidates)
    if not scored or scored[0][0] > 2:
        return []
    return [c for d, c in scored if d == scored[0][0]]
