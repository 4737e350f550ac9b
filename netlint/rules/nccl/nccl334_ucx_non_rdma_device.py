from __future__ import annotations

import fnmatch
from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.rules.base import Rule

# UCX transports that need an RDMA device (ucx@9466d104 src/uct/ib/); "ib" is their alias.
RDMA_TLS = {"rc", "rc_v", "rc_x", "rc_verbs", "rc_mlx5", "ud", "ud_v", "ud_x", "ud_verbs", "ud_mlx5", "dc",
            "dc_x", "dc_mlx5", "ib", "gga"}


def _host_nic(ws, netdev: str):
    inv = ws.inventory
    if inv is None:
        return None
    for group in inv.node_groups:
        for nic in getattr(group, "host_nics", ()):
            for name in nic.netdevs:
                if name.value == netdev or fnmatch.fnmatchcase(netdev, name.value):
                    return nic, name
    return None


class UcxNonRdmaDevice(Rule):
    """`UCX_NET_DEVICES` lists a device that is not an RDMA port.

    What: an entry of `UCX_NET_DEVICES` is a plain netdev (`eth0`: UCX names RDMA ports
    `<device>:<port>`, e.g. `mlx5_0:1`) and either the inventory lists it among the node's NICs without
    RDMA (`host_nics`: front-end, storage, management) while the list also names RDMA ports that
    `UCX_TLS` lets UCX open, or `UCX_TLS` in the same env allows only RDMA transports (`rc`, `ud`, `dc`,
    …), which cannot use it. A list of netdevs alone with `UCX_TLS=tcp` is a deliberate TCP-only
    setting and is not reported.

    Why: UCX (under Open MPI, HPC-X's SHARP/UCC collectives, NIXL) spreads traffic over every listed
    device it can reach: a front-end NIC in the list carries data over TCP next to the RDMA rails, and
    with RDMA-only transports a netdev entry is simply dead, which usually means the intended RDMA port
    is missing.

    Bad:  `UCX_NET_DEVICES=mlx5_0:1,eth0` with `UCX_TLS=rc`
    Good: `UCX_NET_DEVICES=mlx5_0:1,mlx5_1:1`

    Fix: none automatic (name the RDMA ports, `ibv_devices` / `ucx_info -d`).

    Source: openucx/ucx@9466d104 `src/ucp/core/ucp_context.c` L659-680 (`UCX_NET_DEVICES`, `UCX_TLS`),
    `src/uct/ib/base/ib_iface.c` (IB/RoCE transports open `<device>:<port>`), `src/uct/tcp/` (netdevs are
    the tcp transport's devices).
    """

    code = "NCCL334"
    name = "ucx-non-rdma-device"
    summary = "UCX_NET_DEVICES lists a device without RDMA"
    severity = Severity.WARNING
    tags = ("nccl", "ucx", "inventory")

    def check(self, ws) -> Iterator[Finding]:
        from netlint.rules.nccl._stack_context import known, stack_settings

        for env, var in stack_settings(ws, "UCX_NET_DEVICES"):
            tls = known(env, "UCX_TLS")
            rdma_only = False
            rdma_allowed = True
            if tls is not None:
                items = [t.strip().lower() for t in tls.known.split(",") if t.strip()]
                listed = bool(items) and not items[0].startswith("^") and "all" not in items
                rdma_only = listed and all(t in RDMA_TLS for t in items)
                rdma_allowed = not listed or any(t in RDMA_TLS for t in items)
            entries = [e.strip() for e in var.known.split(",")]
            # A front-end NIC only takes data "next to the RDMA ports" when the list also names RDMA
            # ports (or all devices) and UCX_TLS lets UCX open them; `eth0` with `UCX_TLS=tcp` is a
            # deliberate TCP-only setting (launch/bootstrap traffic), not a slip.
            beside_rdma = rdma_allowed and any(":" in e or e.lower() == "all" for e in entries)
            for entry in entries:
                if not entry or ":" in entry or entry.lower() == "all":
                    continue
                host = _host_nic(ws, entry)
                if host is not None:
                    if not beside_rdma:
                        continue
                    nic, name = host
                    yield self.finding(
                        f"UCX_NET_DEVICES lists {entry}, the node's {nic.role.value} NIC without RDMA: UCX can send "
                        f"data over TCP on it next to the RDMA ports", var.span, key=var.key,
                        related=(Related(name.span, f"inventory: {entry} is a {nic.role.value} NIC"),))
                elif rdma_only:
                    yield self.finding(
                        f"UCX_NET_DEVICES lists {entry}, a netdev, but UCX_TLS={tls.known} allows only RDMA "
                        f"transports, which open <device>:<port> (mlx5_0:1): {entry} is never used",
                        var.span, key=var.key,
                        related=(Related(tls.span, f"UCX_TLS={tls.known}"),))
