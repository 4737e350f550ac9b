from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Fix, Related, Severity
from netlint.qos import switch_text, switches
from netlint.qos.common import ROCE_4096_MTU, intent, lossless_ports, names
from netlint.qos.edits import replace_token, written
from netlint.rules.base import Rule


class PortMtuTooSmall(Rule):
    """A switch port MTU is below the fabric MTU, or below what RoCE MTU 4096 needs.

    What: every port MTU the switch file sets must be at least the inventory's `fabric.mtu`. On a
    RoCE switch (inventory `fabric.transport: roce`, or the switch enables PFC), it must also be at
    least 4192: RoCE path MTU 4096 needs a netdev MTU of 4096 + 96 bytes of RoCE v2 headers
    (GRH 40 + UDP 8 + BTH 12 + XRC 4 + AtomicETH 28 + ICRC 4), and every hop must carry it.

    Why: a hop with a smaller MTU drops the large frames; RDMA then fails with "transport retry
    exceeded" / completion error 12 while small-message tests pass (NVIDIA/nccl#709).

    Bad:  `"PORT": {"Ethernet0": {"mtu": "1500", "speed": "400000"}}` with inventory `fabric.mtu: 9100`
    Good: `"PORT": {"Ethernet0": {"mtu": "9100", "speed": "400000"}}`

    Fix: set the port MTU to the fabric MTU (unsafe: changes what the port forwards).

    Source: Linux `include/rdma/ib_addr.h` `iboe_get_mtu()` (netdev MTU minus the RoCE headers) with
    the sizes of `include/rdma/ib_pack.h` (IB_GRH_BYTES 40, IB_UDP_BYTES 8, IB_BTH_BYTES 12,
    IB_EXT_XRC_BYTES 4, IB_EXT_ATOMICETH_BYTES 28, IB_ICRC_BYTES 4 = 96);
    sonic-net/sonic-buildimage@086b03bd `src/sonic-yang-models/yang-models/sonic-port.yang` L164-167
    (mtu 68..9216), `src/sonic-config-engine/minigraph.py` L2457 (default 9100); NVIDIA/nccl#709.
    """

    code = "QOS108"
    name = "port-mtu-too-small"
    severity = Severity.ERROR
    summary = "Port MTU below the fabric MTU or below what RoCE MTU 4096 needs"

    def check(self, ws) -> Iterator[Finding]:
        it = intent(ws)
        fab = it.fabric_mtu.value if it.fabric_mtu is not None else None
        for sw in switches(ws):
            roce = it.transport == "roce" or bool(lossless_ports(sw))
            need = max(fab or 0, ROCE_4096_MTU if roce else 0)
            if not need:
                continue
            low: dict[int, list] = {}
            for name, mtu in sw.port_mtus():
                if mtu.value < need:
                    low.setdefault(mtu.value, []).append((name, mtu))
            text = switch_text(ws, sw)
            for value, rows in sorted(low.items()):
                first = rows[0][1]
                why = (f"the fabric MTU {fab} (inventory fabric.mtu)" if fab and value < fab else
                       f"{ROCE_4096_MTU}, the netdev MTU RoCE path MTU 4096 needs")
                fix = None
                if fab and value < fab:
                    edits, seen = [], set()
                    for _, s in rows:
                        if written(s) and s.span not in seen:
                            seen.add(s.span)
                            edits.append(replace_token(sw.format, s, fab, text))
                    fix = Fix(f"set the port MTU to {fab}", tuple(edits), safe=False) if edits else None
                related = [Related(s.span, f"MTU {value} on {n}") for n, s in rows[1:6]]
                if it.fabric_mtu is not None and fab and value < fab:
                    related.append(Related(it.fabric_mtu.span, "fabric MTU set here"))
                yield self.finding(
                    f"port MTU {value} on {len(rows)} port(s) ({names(n for n, _ in rows)}) is below {why}",
                    first.span, key=f"{sw.name}:mtu:{value}", fix=fix, related=related)
