"""What the NIC2xx and XC610 rules and ``netlint path`` share: which DSCP RoCE traffic carries, which
priority the fabric runs it on, what the NICs of a node group say together, and where a DSCP lands
on a switch.

Who reports which break of the RoCE path (one finding per break, at the place to fix; the path
module :mod:`netlint.nic.path` shows every hop):

====================================================  ==========================================
break                                                 owner
====================================================  ==========================================
NCCL_IB_TC's DSCP is not the fabric's / lands lossy   XC601 (at the NCCL line)
a NIC-forced ToS (traffic class, DMS ToS) likewise    XC610 (at the NIC's ToS)
ECN bits of a NIC ToS are CE or ECT(1)                NIC209
NIC trusts PCP on a DSCP fabric                       NIC201
NIC puts the RoCE DSCP on another priority than the   XC610 (at the NIC's map entry, or its
fabric's RoCE priority (inventory, else the switch)   trust when the default map applies)
NIC PFC vector lacks the fabric's RoCE priority       NIC202 (at the NIC's PFC vector)
NIC PFC lacks the priority the NIC itself gives the   NIC203 (only when no fabric priority is
RoCE DSCP                                             known: otherwise NIC202 or XC610)
switch: DSCP→TC lossy, PG, headroom, PFC per port     QOS101-QOS103, QOS110 (XC601 for NCCL's DSCP)
ECN off on a lossless switch queue                    QOS104
ECN off on the (lossy) switch queue of a DCQCN        NIC208
priority
DCQCN RP / NP off on the RoCE priority                NIC204
DCQCN parameters out of range / disabling             NIC207
firmware value ≠ runtime value                        NIC206
CNP DSCP / priority ≠ intent, or lands in a dropping  NIC205 (the switch's own CNP class: QOS109)
queue
====================================================  ==========================================

"The fabric's RoCE DSCP": the inventory's ``fabric.roce.dscp`` when declared (NIC checks are made
against the right class; a wrong class elsewhere is XC601's / XC610's), else the classes traffic
really carries: NIC-forced ToS, else the ``NCCL_IB_TC`` values launches set, else the operator's
DMS ToS. "The fabric's RoCE priority": ``fabric.roce.priority``, else the PFC-enabled TC every
inventory switch puts that DSCP in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable

from netlint.located import Scalar, Span

if TYPE_CHECKING:
    from netlint.models.nic import NicQos
    from netlint.workspace import Workspace

EDITABLE = ("native", "nicop-template", "spectrum-x-profile")  # formats a fix may edit (not tool dumps)


@dataclass(frozen=True)
class Tos:
    """A ToS byte RoCE traffic carries, and who sets it."""

    tos: int
    kind: str                  # nccl | nic | inventory | intent | dms
    label: str                 # "NCCL_IB_TC=106", "traffic_class 106 (nic.yaml)"
    token: Scalar | None       # where it is written (None: the inventory's DSCP intent)

    @property
    def dscp(self) -> int:
        return self.tos >> 2

    @property
    def ecn(self) -> int:
        return self.tos & 3


def roce_transport(ws: "Workspace") -> bool:
    try:
        return ws.inventory.fabric.transport.value == "roce"
    except AttributeError:
        return False


def other_transport(ws: "Workspace") -> bool:
    """The inventory says the fabric is not RoCE (InfiniBand, EFA, plain Ethernet): RoCE QoS is moot."""
    return ws.inventory is not None and not roce_transport(ws)


def intent(ws: "Workspace"):
    from netlint.qos.common import intent as qos_intent

    return qos_intent(ws)


def switches(ws: "Workspace") -> list:
    """The inventory's switches that say something about PFC (the fabric this NIC talks to)."""
    from netlint.qos.common import fabric_switches

    return ws.derived("nic.switches", lambda w: [s for s in fabric_switches(w) if s.has_pfc_info()])


def groups(ws: "Workspace") -> list[tuple[Any, list["NicQos"]]]:
    """(node group or None, its NicQos) for every group that has NIC files."""
    from netlint.nic.join import nic_groups

    return [(g, nics) for g, nics in nic_groups(ws) if nics]


def peers(ws: "Workspace", nic: "NicQos") -> list["NicQos"]:
    """``nic`` first, then the other NicQos of its node group(s) that can be the same NIC port: what
    one file leaves unsaid, another file of the same NIC may say (mlnx_qos gives trust and PFC,
    sysfs the DCQCN enables)."""
    from netlint.nic.join import _same_nic

    def compute(w):
        out: dict[int, list] = {}
        for _, nics in groups(w):
            for a in nics:
                row = out.setdefault(id(a), [a])
                row += [b for b in nics if b is not a and b not in row and one_nic(a, b, w.inventory is None)
                        and _same_nic(a, b)]
        return out

    return ws.derived("nic.peers", compute).get(id(nic), [nic])


OPERATOR = ("nicop-template", "spectrum-x-profile")


def one_nic(a: "NicQos", b: "NicQos", strict: bool = False) -> bool:
    """Whether two files can speak of one NIC: not two NIC Configuration Operator documents (each
    template selects its own NICs by ``nicSelector``; a profile applies only where a template enables it).
    ``strict`` (no inventory binds the files to a node group): only files of one folder that name the
    same interface or device — files lying side by side may come from different hosts or clusters, and
    files of different folders (``nodetype/cx3/``, ``nodetype/login/``) are taken to."""
    if a.file == b.file:
        return True
    if a.format in OPERATOR and b.format in OPERATOR:
        return False
    if not strict:
        return True
    if a.file.rpartition("/")[0] != b.file.rpartition("/")[0]:
        return False  # `nodetype/cx3/` and `nodetype/login/`: one interface name, two kinds of host
    pairs = [(getattr(a, k), getattr(b, k)) for k in ("interface", "device")]
    known = [(x.value, y.value) for x, y in pairs if x is not None and y is not None]
    return bool(known) and all(x == y for x, y in known)


def priority_of_dscp(nics: Iterable["NicQos"], dscp: int) -> Any:
    """The priority ``dscp`` gets, from the first of ``nics`` (a NIC and its peers) that decides it: one
    that maps the DSCP or states its trust mode. A file that says ``--trust pcp`` has decided that DSCP
    picks no priority; a peer's ``--trust dscp`` does not overrule it."""
    for n in nics:
        if dscp in n.dscp_to_prio or n.trust.value is not None:
            return n.priority_of_dscp(dscp)
    return None


def first(nics: Iterable["NicQos"], get: Callable[["NicQos"], Any]) -> Any:
    for n in nics:
        v = get(n)
        if v is not None:
            return v
    return None


def group_of(ws: "Workspace", nic: "NicQos") -> list:
    from netlint.nic.join import bindings

    for b in bindings(ws):
        if b.nic is nic:
            return list(b.groups)
    return []


def line_rate_mbps(ws: "Workspace", nic: "NicQos") -> int | None:
    """The NIC's line rate in Mb/s from the inventory: the NIC the file names (hca or netdev), else the
    speed every RDMA NIC of its node group(s) shares; None when unknown or mixed."""
    from netlint import hardware

    names = {str(x.value) for x in (nic.device, nic.interface) if x is not None}
    speeds = set()
    for g in group_of(ws, nic):
        for n in g.nics:
            gbit = hardware.link_gbit(n.speed.value)
            if names & {n.hca.value, n.netdev.value if n.netdev is not None else None}:
                return None if gbit is None else int(gbit * 1000)
            speeds.add(gbit)
    return int(speeds.pop() * 1000) if len(speeds) == 1 and None not in speeds else None


# ---- the ToS RoCE traffic carries -----------------------------------------------------------------

def forced_tos(ws: "Workspace", nics: list["NicQos"]) -> Tos | None:
    """The ToS the NICs put on every RoCE QP themselves (mlx5 global traffic class), replacing NCCL's."""
    v = first(nics, lambda n: n.traffic_class.value)
    if v is not None:
        return Tos(int(v.value), "nic", f"traffic class {v.value} ({v.span.file})", v)
    return None


def nccl_tos(ws: "Workspace") -> list[Tos]:
    """Distinct ``NCCL_IB_TC`` values launches set (unconditional, readable), first assignment each."""
    from netlint.nccl import scope
    from netlint.nccl.values import int_value

    out: dict[int, Tos] = {}
    for _, var in scope.nccl_assignments(ws):
        if var.key != "NCCL_IB_TC" or var.known is None or var.conditional:
            continue
        tc = int_value(var.known)
        if tc is not None and 0 <= tc <= 255 and tc not in out:
            out[tc] = Tos(tc, "nccl", f"NCCL_IB_TC={var.known}", var.value if isinstance(var.value, Scalar)
                          else var.name)
    return list(out.values())


def wire_tos(ws: "Workspace", group: Any, nics: list["NicQos"]) -> list[Tos]:
    """The ToS bytes RoCE traffic of this node group carries (see the module docstring)."""
    forced = forced_tos(ws, nics)
    if forced is not None:
        return [forced]
    roce_tos = getattr(group, "roce_tos", None)
    if roce_tos is not None:
        return [Tos(roce_tos.value, "inventory", f"roce_tos {roce_tos.value} (inventory)", roce_tos)]
    # without an inventory nothing says an env file and a NIC file belong to one cluster
    set_by_nccl = nccl_tos(ws) if ws.inventory is not None else []
    if set_by_nccl:
        return set_by_nccl
    dms = first(nics, lambda n: n.dms_tos.value)
    return [Tos(int(dms.value), "dms", f"DMS ToS {dms.value} ({dms.span.file})", dms)] if dms is not None else []


def roce_dscps(ws: "Workspace", nic: "NicQos") -> list[tuple[int, Tos | None]]:
    """(DSCP, where it comes from) the NIC checks judge: the inventory's RoCE DSCP when declared, else
    what :func:`wire_tos` says for the NIC's node group(s)."""
    it = intent(ws)
    if it.dscp is not None:
        return [(it.dscp.value, None)]
    out: dict[int, Tos] = {}
    for g in group_of(ws, nic) or [None]:
        for t in wire_tos(ws, g, peers(ws, nic)):
            out.setdefault(t.dscp, t)
    return sorted(out.items())


# ---- switches ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Landing:
    switch: Any
    tc: int
    span: Span
    defaulted: bool            # not in a SONiC map: the port's default TC 0 (SAI QOS_DEFAULT_TC)
    lossless: bool
    ports: tuple = ()          # the ports whose map this is


def landings(sw, dscp: int) -> list[Landing]:
    """Where ``dscp`` lands on ``sw`` per bound DSCP→TC map (unknown entries skipped, as XC601)."""
    out = []
    for tc, span, ports in sw.dscp_to_tc(dscp):
        if span is None:
            continue
        if tc is None:
            if not sw.format.startswith("sonic"):
                continue
            tc, defaulted = 0, True
        else:
            defaulted = False
        out.append(Landing(sw, tc, span, defaulted, sw.pfc_enabled_on(tc), tuple(ports)))
    return out


def switch_priority(ws: "Workspace", dscp: int) -> tuple[int, list[Landing]] | None:
    """The PFC-enabled TC every inventory switch that maps ``dscp`` puts it in, with the landings;
    None when no switch says, or they disagree, or one puts it in a lossy class."""
    rows = [r for sw in switches(ws) for r in landings(sw, dscp)]
    if not rows or not all(r.lossless for r in rows) or len({r.tc for r in rows}) != 1:
        return None
    return rows[0].tc, rows


def fabric_priorities(ws: "Workspace", nic: "NicQos") -> list[tuple[int, Scalar | None, list[Landing]]]:
    """(priority, the inventory's statement or None, switch landings) RoCE runs on: the inventory's
    ``fabric.roce.priority``, else the lossless TC the switches agree on for each RoCE DSCP."""
    it = intent(ws)
    if it.priority is not None:
        d = it.dscp.value if it.dscp is not None else None
        rows = [r for sw in switches(ws) for r in landings(sw, d)] if d is not None else []
        return [(it.priority.value, it.priority, rows)]
    out = {}
    for d, _ in roce_dscps(ws, nic):
        got = switch_priority(ws, d)
        if got is not None:
            out.setdefault(got[0], (got[0], None, got[1]))
    return list(out.values())


def pfc_tokens(sw, prio: int, limit: int = 3) -> list[Span]:
    """Where the switch enables PFC on ``prio`` (its pfc_enable values), a few."""
    return sw.lossless_priorities().get(prio, [])[:limit]


def pfc_vector_spans(sw, limit: int = 3) -> list[Span]:
    """The switch's written PFC vectors (pfc_enable tokens of its ports), a few distinct ones."""
    out: list[Span] = []
    for port in sw.ports.values():
        tok = port.pfc_enable_token
        if tok is not None and tok.span not in out:
            out.append(tok.span)
        if len(out) >= limit:
            break
    return out


def uses_dcqcn(nics: list["NicQos"]) -> bool | None:
    """False when any file of this NIC runs another congestion control (Spectrum-X CC)."""
    said = [n.uses_dcqcn() for n in nics if n.uses_dcqcn() is not None]
    if False in said:
        return False
    return True if said else None
