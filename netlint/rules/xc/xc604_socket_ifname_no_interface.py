from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Severity
from netlint.rules.base import Rule
from netlint.rules.xc._common import inventory_nics, inventory_related, list_settings, summary


class SocketIfnameNoInterface(Rule):
    """`NCCL_SOCKET_IFNAME` matches none of the network interfaces the inventory lists.

    What: the inventory's `netdev` names are matched with NCCL's rules (`^` exclude, `=` exact,
    otherwise prefix). When the value selects none of them, the finding names the value and the
    inventory's interfaces. It is a warning, not an error: the inventory may not list a management
    NIC (`eth0`) that does exist on the nodes; if so, add it to the inventory.

    Why: with no matching interface NCCL continues with zero interfaces and fails later with a
    confusing message ("Bootstrap : no socket interface found", or "connecting to address with
    family … is neither AF_INET nor AF_INET6"). The classic cause is `eth0` on hosts that name
    their NICs `ens*`/`enp*`.

    Bad:  `NCCL_SOCKET_IFNAME=eth0` (inventory netdevs ens1np0 … ens8np0)
    Good: `NCCL_SOCKET_IFNAME=ens` or `NCCL_SOCKET_IFNAME==ens1np0`

    Fix: none automatic (which interface carries bootstrap traffic is a choice).

    Source: NVIDIA/nccl@5067397c (2.30.7) `src/misc/utils.cc` L218-240 (`matchIf`, `matchIfList`),
    `src/misc/socket.cc` L196-202 (a set `NCCL_SOCKET_IFNAME` is used as given: "find or fail", no
    fallback to other interfaces); NCCL User Guide, Environment Variables: NCCL_SOCKET_IFNAME;
    NVIDIA/nccl#1837; marin-community/marin#7018, #6940; NVIDIA/nccl-tests#219.
    """

    code = "XC604"
    name = "socket-ifname-no-interface"
    summary = "NCCL_SOCKET_IFNAME matches no interface the inventory lists"
    severity = Severity.WARNING
    tags = ("nccl", "inventory", "cross-file")

    def check(self, ws) -> Iterator[Finding]:
        nics = [(g, n) for g, n in inventory_nics(ws) if n.netdev is not None]
        if not nics:
            return
        netdevs = sorted({n.netdev.value for _, n in nics})
        first = nics[0][1].netdev.span
        for env, var, lst in list_settings(ws, "NCCL_SOCKET_IFNAME"):
            if any(lst.selects(d) for d in netdevs):
                continue
            how = "excludes every interface" if lst.exclude else "matches none of the interfaces"
            yield self.finding(
                f"NCCL_SOCKET_IFNAME={var.known} {how} the inventory lists ({summary(netdevs)}): if the nodes "
                f"have no such interface, NCCL finds none and fails at bootstrap", var.span,
                key="NCCL_SOCKET_IFNAME", related=inventory_related(first, "the inventory's netdevs"))
