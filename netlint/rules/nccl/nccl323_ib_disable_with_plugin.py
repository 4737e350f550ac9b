from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.rules.base import Rule
from netlint.rules.nccl._common import ivalue, settings

BUILTIN_NETS = ("ib", "socket")


class IbDisableWithPlugin(Rule):
    """`NCCL_IB_DISABLE` set while an external network plugin is selected in the same env.

    What: `NCCL_IB_DISABLE` is non-zero and the same env names an external net plugin:
    `NCCL_NET_PLUGIN` set to something other than `none`, or `NCCL_NET` set to a name other than
    NCCL's built-in `IB`/`Socket` (e.g. HPC-X's IBext, `AWS Libfabric`, `gIB`).

    Why: `NCCL_IB_DISABLE` switches off NCCL's *internal* IB transport only; an external plugin keeps
    using the NICs, so the variable does not do what it seems to (typically: force TCP for a test).

    Bad:  `NCCL_NET_PLUGIN=/opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so` with `NCCL_IB_DISABLE=1`
    Good: `NCCL_NET=Socket` (or `NCCL_NET_PLUGIN=none`) to force sockets; the plugin's own switch
    (`NCCL_IBEXT_DISABLE=1` for HPC-X)

    Fix: none automatic (intent unclear: drop the plugin or drop the variable).

    Source: NVIDIA/nccl@5067397c (2.30.7) `src/transport/net_ib/init.cc` L291 (`NCCL_IB_DISABLE`
    stops only NCCL's internal IB transport), `src/plugin/net.cc` L263 (`NCCL_NET_PLUGIN`), L321-351
    (external plugins are tried before the internal ones; `NCCL_NET` selects one by name,
    case-insensitive); NCCL User Guide, Environment Variables: NCCL_NET, NCCL_NET_PLUGIN;
    NVIDIA/nccl#676; NVIDIA/nccl-tests#373.
    """

    code = "NCCL323"
    name = "ib-disable-with-plugin"
    summary = "NCCL_IB_DISABLE has no effect on an external net plugin"
    severity = Severity.WARNING
    tags = ("nccl",)

    def check(self, ws) -> Iterator[Finding]:
        for env, var in settings(ws, "NCCL_IB_DISABLE"):
            if not ivalue(var):
                continue
            for name in ("NCCL_NET_PLUGIN", "NCCL_NET"):
                other = env.get(name)
                value = (other.known or "").strip() if other is not None else ""
                if not value or other.conditional:
                    continue
                if (name == "NCCL_NET_PLUGIN" and value.lower() != "none") or \
                        (name == "NCCL_NET" and value.lower() not in BUILTIN_NETS):
                    yield self.finding(
                        f"NCCL_IB_DISABLE={var.known} turns off only NCCL's internal IB transport; the "
                        f"external plugin selected by {name}={value} still uses the NICs", var.span,
                        key=var.key, related=(Related(other.span, f"{name}={value}"),))
                    break
