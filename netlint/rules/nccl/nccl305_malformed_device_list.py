from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Severity
from netlint.nccl import lists, scope
from netlint.nccl.fixes import piece_span, value_fix
from netlint.rules.base import Rule
from netlint.rules.nccl.nccl303_invalid_value import CONF_QUIRKS


class MalformedDeviceList(Rule):
    """`NCCL_IB_HCA` / `NCCL_SOCKET_IFNAME` / `NCCL_OOB_NET_IFNAME` list syntax that cannot work.

    What: NCCL's list grammar is `[^][=]name[:port[:rail[:plane]]],…`: `^` (exclude) must come
    first, then `=` (exact); entries are split on `,` and **not trimmed**. Reported: a space in an
    entry (`eth0, eth1` holds the name `" eth1"`), `=^` in the wrong order (an exact match on the
    literal `^eth0`), `^`/`=` in a later entry (a literal character), quotes inside the value, an IB
    port that reads as 0, a list with only empty entries, an `NCCL_SOCKET_IFNAME` of one character
    (ignored), more than 32 HCAs, an `NCCL_IB_HCA` entry that is a netdev name (`enp137s0f0np0`,
    `eth0`: NCCL matches the RDMA device names `ibv_get_device_list` gives, `mlx5_0`); a stray `,` is info.

    Why: NCCL accepts all of these silently. A name that matches nothing drops that rail or
    interface; with no interface left NCCL fails at bootstrap ("no socket interface found") or falls
    back from IB to TCP sockets.

    Bad:  `NCCL_SOCKET_IFNAME=eth0, eth1`, `NCCL_SOCKET_IFNAME==^docker0`
    Good: `NCCL_SOCKET_IFNAME=eth0,eth1`, `NCCL_SOCKET_IFNAME=^=docker0`

    Fix: the list without spaces / with `^=` in order (unsafe: NCCL then selects other devices).

    Source: NVIDIA/nccl@5067397c (2.30.7) `src/misc/utils.cc` L189-240 (`parseStringList`,
    `matchIf`, `matchIfList`: split on `,`, no trimming, prefix match unless `=`),
    `src/transport/net_ib/init.cc` L319-370 (a leading `^`, then `=`; entries matched against the
    verbs device names),
    `src/transport/net_ib/common.h` L112 (`MAX_IB_DEVS 32`), `src/misc/socket.cc` L196-198 (a
    one-character `NCCL_SOCKET_IFNAME` is ignored); NCCL User Guide, Environment Variables:
    NCCL_SOCKET_IFNAME, NCCL_IB_HCA; NVIDIA/nccl#236 (`=` exact match); llm-d/llm-d-benchmark#1862.
    """

    code = "NCCL305"
    name = "malformed-device-list"
    summary = "NCCL_IB_HCA / NCCL_SOCKET_IFNAME list syntax that matches nothing"
    severity = Severity.ERROR
    tags = ("nccl",)

    def check(self, ws) -> Iterator[Finding]:
        for env, var in scope.nccl_assignments(ws):
            if var.key not in lists.LIST_VARS or var.known is None or CONF_QUIRKS & set(var.flags):
                continue
            raw = getattr(var.value, "raw", "") or ""
            if var.known == "" and "$" in raw:
                continue  # `${NCCL_SOCKET_IFNAME:-}`, `${IFACE:-}`: the caller's value if any, else unset
            for p in lists.problems(var.key, var.known):
                fix = value_fix(var, p.fix, ws, f"write {var.key}={p.fix}", p.safe) if p.fix else None
                yield self.finding(p.message, piece_span(var, p.start, p.end), key=var.key, fix=fix,
                                   severity=Severity.parse(p.severity))
