"""Facts several QOS rules share: the inventory's RoCE intent, lossless ports, queue of a priority."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from netlint.findings import Related
from netlint.located import Scalar, Span
from netlint.models.switch import Port, SwitchQos

if TYPE_CHECKING:
    from netlint.workspace import Workspace

# SONiC dual-ToR ports with DSCP remap enable PFC on 2,3,4,6 (bounced-back lossless traffic is
# remapped 3→2, 4→6 to avoid PFC deadlock): sonic-net/SONiC ``doc/qos/tunnel_dscp_remapping.md``;
# stock renders.
DUAL_TOR_PFC = frozenset({2, 3, 4, 6})
# netdev MTU needed for RoCE path MTU 4096: 4096 + GRH 40 + UDP 8 + BTH 12 + XRC 4 + AtomicETH 28
# + ICRC 4 = 4192 (linux include/rdma/ib_addr.h iboe_get_mtu, include/rdma/ib_pack.h).
ROCE_4096_MTU = 4192
SONIC_DEFAULT_MTU = 9100  # src/sonic-config-engine/minigraph.py


@dataclass(frozen=True)
class RoceIntent:
    dscp: Scalar | None = None
    priority: Scalar | None = None
    cnp_dscp: Scalar | None = None
    cnp_priority: Scalar | None = None
    fabric_mtu: Scalar | None = None
    transport: str | None = None

    @property
    def known(self) -> bool:
        return self.dscp is not None or self.priority is not None


def intent(ws: "Workspace") -> RoceIntent:
    inv = ws.inventory
    fabric = getattr(inv, "fabric", None) if inv is not None else None
    if fabric is None:
        return RoceIntent()
    roce = getattr(fabric, "roce", None)
    return RoceIntent(
        dscp=getattr(roce, "dscp", None), priority=getattr(roce, "priority", None),
        cnp_dscp=getattr(roce, "cnp_dscp", None), cnp_priority=getattr(roce, "cnp_priority", None),
        fabric_mtu=getattr(fabric, "mtu", None),
        transport=fabric.transport.value if getattr(fabric, "transport", None) is not None else None)


def fabric_switches(ws: "Workspace") -> list[SwitchQos]:
    """Switches that belong to one fabric: those the inventory lists (cross-switch rules use these)."""
    from netlint.qos import switches

    inv = ws.inventory
    if inv is None or not getattr(inv, "switches", None):
        return []
    names = {s.name.value for s in inv.switches}
    return [sw for sw in switches(ws) if sw.name in names]


def lossless_ports(sw: SwitchQos) -> list[Port]:
    """Ports with at least one PFC-enabled priority (computed once per switch)."""
    got = sw.cache.get("lossless_ports")
    if got is None:
        got = sw.cache["lossless_ports"] = [p for p in sw.ports.values() if p.pfc_enable]
    return got


def is_dual_tor(port: Port) -> bool:
    return port.pfc_set() == DUAL_TOR_PFC


def queue_of_priority(sw: SwitchQos, port: Port, prio: int) -> int:
    """The egress queue PFC priority ``prio`` pauses: MAP_PFC_PRIORITY_TO_QUEUE, else the TC→queue
    map (TC = priority), else the identity (SAI default and SONiC's stock maps)."""
    for kind in ("pfc_to_queue", "tc_to_queue"):
        m = sw.map_for(port, kind)
        if m is not None and m.get(prio) is not None:
            return m.get(prio)  # type: ignore[return-value]
    return prio


def names(items: Iterable[str], limit: int = 3) -> str:
    items = list(items)
    if len(items) <= limit:
        return ", ".join(items)
    return f"{', '.join(items[:limit])} and {len(items) - limit} more"


def inventory_related(value, what: str) -> list[Related]:
    """The inventory value a finding follows from, as a related location: a run on the inventory
    alone (pre-commit, --changed-since) then reports the finding its edit causes."""
    span = getattr(value, "span", None)
    if span is None or span.line <= 0:
        return []
    return [Related(span, f"{what}: {value.value}")]


def related_ports(sw: SwitchQos, ports: list[Port], message: str, skip: Span | None = None,
                  limit: int = 5) -> list[Related]:
    out = []
    for p in ports:
        span = p.pfc_enable_token.span if p.pfc_enable_token is not None else (p.qos_span or p.span)
        if span == skip or any(r.span == span for r in out):
            continue
        out.append(Related(span, message.format(port=p.name)))
        if len(out) >= limit:
            break
    return out


def port_mtu(sw: SwitchQos, port: Port | None = None) -> int | None:
    if port is not None and port.mtu is not None:
        return port.mtu.value
    mtus = [s.value for _, s in sw.port_mtus()]
    return max(mtus) if mtus else None
