from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Severity
from netlint.rules.base import Rule
from netlint.rules.xc._common import inventory_related, list_settings, summary
from netlint.rules.xc._ifaces import selectable


class SocketIfnameNoInterface(Rule):
    """`NCCL_SOCKET_IFNAME` matches none of the network interfaces the inventory lists.

    What: the inventory's interfaces are the RDMA NICs' `netdev` names and each node group's
    `host_nics` (front-end, bootstrap, storage, management NICs: `eth0`, `enp0s12`, or a pattern
    such as `enp*` where names differ between nodes). They are matched with NCCL's rules: entries
    split on `,`, each a name prefix, exact names after a leading `=`, and a leading `^` excludes
    instead. When the value selects none of them the finding, at the value, names the inventory's
    interfaces. Loopback exists on every host, so a list that names `lo` is NCCL317's business. A
    list that only excludes (`^docker,lo`) is fine when some listed interface survives it. Without
    any interface name in the inventory the rule is silent. It is a warning: an interface the
    inventory does not list may still exist; if so, list it under `host_nics`.

    Why: with no matching interface NCCL continues with zero interfaces and fails later with a
    confusing message ("Bootstrap : no socket interface found", or "connecting to address with
    family … is neither AF_INET nor AF_INET6"). The classic cause is `eth0` on hosts that name
    their NICs `ens*`/`enp*`. On cloud VMs (GCP, Azure, AWS) bootstrap usually runs over the
    front-end NIC, which is not an RDMA NIC: declare it under `host_nics`.

    Bad:  `NCCL_SOCKET_IFNAME=eth0` (inventory netdevs ens1np0 … ens8np0, no host NIC eth0)
    Good: `NCCL_SOCKET_IFNAME=eth0` with `host_nics: [{role: frontend, netdev: eth0}]`, or
    `NCCL_SOCKET_IFNAME==ens1np0`

    Fix: none automatic (which interface carries bootstrap traffic is a choice).

    Source: NVIDIA/nccl@5067397c (2.30.7) `src/misc/utils.cc` L218-240 (`matchIf`, `matchIfList`),
    `src/misc/socket.cc` L196-202 (a set `NCCL_SOCKET_IFNAME` is used as given: "find or fail", no
    fallback to other interfaces); NCCL User Guide, Environment Variables: NCCL_SOCKET_IFNAME
    (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html: a list of prefixes, `^` to
    exclude, `=` for an exact name); NVIDIA/nccl#1837; marin-community/marin#7018, #6940;
    NVIDIA/nccl-tests#219.
    """

    code = "XC604"
    name = "socket-ifname-no-interface"
    summary = "NCCL_SOCKET_IFNAME matches no interface the inventory lists"
    severity = Severity.WARNING
    tags = ("nccl", "inventory", "cross-file")

    def check(self, ws) -> Iterator[Finding]:
        known = _interfaces(ws)
        if not known:
            return
        names = sorted({n for n, _, _ in known})
        first_span, first_what = known[0][1], known[0][2]
        hosts = any(what.startswith("host NIC") for _, _, what in known)
        for env, var, lst in list_settings(ws, "NCCL_SOCKET_IFNAME"):
            if any(selectable(lst, n) for n in names):
                continue
            if not lst.exclude and lst.selects("lo"):
                continue   # loopback exists on every host (NCCL317 judges choosing it)
            how = "excludes every interface" if lst.exclude else "matches none of the interfaces"
            hint = "" if hosts else "; if the nodes have a front-end or management NIC, list it under host_nics"
            yield self.finding(
                f"NCCL_SOCKET_IFNAME={var.known} {how} the inventory lists ({summary(names)}): if the nodes "
                f"have no such interface, NCCL finds none and fails at bootstrap{hint}", var.span,
                key="NCCL_SOCKET_IFNAME", related=inventory_related(first_span, first_what))


def _interfaces(ws) -> list[tuple[str, object, str]]:
    """(name or pattern, span, what) for every interface the inventory lists: the RDMA NICs'
    netdevs (a NIC without one adds nothing) and the host NICs."""
    inv = ws.inventory
    if inv is None:
        return []
    out = []
    for g in inv.node_groups:
        out += [(n.netdev.value, n.netdev.span, "the inventory's netdevs") for n in g.nics if n.netdev is not None]
        for h in g.host_nics:
            out += [(d.value, d.span, f"host NIC ({h.role.value})") for d in h.netdevs]
    return out
