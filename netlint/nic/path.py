"""The end-to-end RoCE path of each job, hop by hop: NCCL traffic class → NIC priority (trust, map) →
switch DSCP→TC → PG / queue → PFC and ECN on that priority → CNPs back on their class.

:func:`chains` builds one :class:`Chain` per launch (a training job, or an env file no job takes in)
and node group; ``netlint path`` prints them. Each hop says what it is, where it is written, and
whether it holds (``ok``), breaks (``break``, with the rule that reports that break: the ownership
table is in :mod:`netlint.nic.roce`) or cannot be told (``unknown``). Nothing here reports findings:
the rules do, once per break, at the place to fix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from netlint.located import Span
from netlint.models.nic import tos_parts
from netlint.nic import roce

if TYPE_CHECKING:
    from netlint.workspace import Workspace

ECN = {0: "Not-ECT", 1: "ECT(1)", 2: "ECT(0)", 3: "CE"}


@dataclass
class Hop:
    step: str                  # what this hop is ("traffic class", "NIC priority", "leaf01 DSCP->TC", ...)
    value: str                 # what it is set to, in words
    span: Span | None = None   # where it is written (None: a default nobody wrote, or unknown)
    status: str = "ok"         # ok | break | unknown
    owner: str | None = None   # the rule that reports the break
    note: str = ""

    def as_dict(self) -> dict:
        return {"step": self.step, "value": self.value, "status": self.status, "owner": self.owner,
                "note": self.note or None, "location": _loc(self.span)}


@dataclass
class Chain:
    job: str | None            # the launch's file (None: no launch in the repo)
    group: str | None          # node group name
    nic_files: list[str] = field(default_factory=list)
    hops: list[Hop] = field(default_factory=list)

    @property
    def first_break(self) -> Hop | None:
        return next((h for h in self.hops if h.status == "break"), None)

    def as_dict(self) -> dict:
        brk = self.first_break
        return {"job": self.job, "node_group": self.group, "nic_files": self.nic_files,
                "hops": [h.as_dict() for h in self.hops], "break": brk.as_dict() if brk is not None else None}


def _loc(span: Span | None) -> str | None:
    if span is None or span.line <= 0:
        return None if span is None else span.file
    return f"{span.file}:{span.line}:{span.col}"


def chains(ws: "Workspace") -> list[Chain]:
    from netlint.nccl import scope

    launches = [(a, g) for a, g in scope.launch_groups(ws)
                if scope.configures_ib(g) or any(v.key == "NCCL_IB_TC" for e in g for v in e.variables)]
    inv = ws.inventory
    node_groups = list(inv.node_groups) if inv is not None else [None]
    by_group = {id(g): nics for g, nics in roce.groups(ws)}
    out = []
    for anchor, envs in launches or [(None, [])]:
        for g in node_groups:
            nics = by_group.get(id(g), []) if g is not None else list(ws.nics)
            for one in _nics(ws, nics) or [[]]:
                out.append(_chain(ws, anchor, envs, g, one))
    return out


def _nics(ws, nics) -> list[list]:
    """The group's NIC files split into NICs: files that can describe one NIC port stay together (an
    mlxconfig query and a sysfs dump of one host), two operator templates do not."""
    out, taken = [], set()
    for n in nics:
        if id(n) in taken:
            continue
        one = [m for m in roce.peers(ws, n) if id(m) not in taken and m in nics]
        taken.update(id(m) for m in one)
        out.append(one)
    return out


def _group_name(g: Any, ws) -> str | None:
    if g is None:
        return None
    if getattr(g, "name", None) is not None:
        return g.name.value
    return f"nodes[{ws.inventory.node_groups.index(g)}]"


def _chain(ws, anchor, envs, g, nics) -> Chain:
    from netlint.nccl import scope

    ch = Chain(job=anchor.file if anchor is not None else None, group=_group_name(g, ws),
               nic_files=sorted({n.file for n in nics}))
    it = roce.intent(ws)
    tos_hop, dscp, source = _tos(ws, scope, envs, g, nics, it, anchor)
    ch.hops.append(tos_hop)
    if dscp is None:
        return ch
    p_fabric = it.priority.value if it.priority is not None else None
    if p_fabric is None:
        got = roce.switch_priority(ws, dscp)
        p_fabric = got[0] if got is not None else None
    start = len(ch.hops)
    q = _nic_hops(ch, nics, dscp, p_fabric, it)
    for sw in roce.switches(ws):
        _switch_hops(ch, sw, dscp, q, source, it)
    if tos_hop.status == "break" and tos_hop.owner in ("XC601", "XC610"):
        # a wrong DSCP breaks the hops after it: one break, reported at the class
        for h in ch.hops[start:]:
            if h.status == "break" and (h.step in _FOLLOW or h.step.endswith(_FOLLOW_SW)):
                h.owner, h.note = tos_hop.owner, f"follows from DSCP {dscp}" + (f"; {h.note}" if h.note else "")
    _cnp_hops(ch, ws, nics, it)
    return ch


_FOLLOW = ("NIC priority",)
_FOLLOW_SW = (" DSCP->TC", " PFC", " ECN")


def _tos(ws, scope, envs, g, nics, it, anchor):
    """The ToS hop, the DSCP RoCE carries (None: unknown) and who sets it (nccl | nic | inventory | unset)."""
    forced = roce.forced_tos(ws, nics)
    roce_tos = getattr(g, "roce_tos", None)
    var = scope.effective(envs).get("NCCL_IB_TC") if envs else None
    if forced is not None:
        tos, label, span, source = forced.tos, f"forced by the NIC: {forced.label}", forced.token.span, "nic"
    elif roce_tos is not None:
        tos, label, span, source = roce_tos.value, "forced by the NICs (inventory roce_tos)", roce_tos.span, "inventory"
    elif var is not None and var.known is not None and var.known.strip().isdigit():
        tos, label, span, source = int(var.known), f"NCCL_IB_TC={var.known}", var.span, "nccl"
    elif var is not None:
        return Hop("traffic class", f"NCCL_IB_TC={var.known or '?'} (not readable)", var.span, "unknown"), None, None
    elif anchor is not None:
        dms = roce.first(nics, lambda n: n.dms_tos.value)
        if dms is not None:
            tos, label, span, source = int(dms.value), f"NIC default ToS {dms.value} (operator qos.tos)", dms.span, "nic"
        else:
            tos, label, span, source = 0, "NCCL_IB_TC not set (NCCL's default 0)", anchor.span, "unset"
    elif it.dscp is not None:
        d = it.dscp.value
        return Hop("traffic class", f"no launch; the inventory's RoCE class DSCP {d}", it.dscp.span), d, "intent"
    else:
        return Hop("traffic class", "no launch and no RoCE class in the inventory", None, "unknown"), None, None
    dscp, ecn = tos_parts(tos) if 0 <= tos <= 255 else (None, None)
    if dscp is None:
        return Hop("traffic class", f"{label}: not a ToS byte", span, "unknown"), None, None
    hop = Hop("traffic class", f"{label} -> DSCP {dscp}, ECN {ECN[ecn]}", span)
    if it.dscp is not None and dscp != it.dscp.value:
        hop.status, hop.owner = "break", ("XC601" if source in ("nccl", "unset") else "XC610")
        hop.note = f"the inventory's RoCE class is DSCP {it.dscp.value}"
    elif ecn in (1, 3) and source == "nic":
        hop.status, hop.owner, hop.note = "break", "NIC209", f"ECN bits {ECN[ecn]}"
    return hop, dscp, source


def _nic_hops(ch: Chain, nics, dscp: int, p_fabric, it) -> int | None:
    if not nics:
        ch.hops.append(Hop("NIC", "no NIC file for this node group", None, "unknown"))
        return None
    trust = roce.first(nics, lambda n: n.trust.value)
    hop = Hop("NIC trust", trust.value if trust is not None else "not stated", trust.span if trust else None,
              "ok" if trust is not None else "unknown")
    if trust is not None and trust.value == "pcp":
        hop.status, hop.owner, hop.note = "break", "NIC201", "untagged RoCE v2 is classified as priority 0"
    ch.hops.append(hop)
    q = roce.priority_of_dscp(nics, dscp)
    hop = Hop("NIC priority", f"DSCP {dscp} -> priority {q.value}" + (" (default DSCP >> 3)" if q.implied else "")
              if q is not None else "unknown", q.span if q is not None else None, "ok" if q is not None else "unknown")
    if q is not None and p_fabric is not None and q.value != p_fabric:
        hop.status, hop.owner, hop.note = "break", "XC610", f"the fabric's RoCE priority is {p_fabric}"
    ch.hops.append(hop)
    prio = q.value if q is not None else p_fabric
    pfc = roce.first(nics, lambda n: n.pfc.value)
    if pfc is None or prio is None:
        ch.hops.append(Hop("NIC PFC", "not stated" if pfc is None else f"on {_prios(pfc.value)}",
                           pfc.span if pfc is not None else None, "unknown"))
    else:
        hop = Hop("NIC PFC", f"on {_prios(pfc.value)}", pfc.span)
        want = p_fabric if p_fabric is not None else prio
        if want not in pfc.value:
            hop.status, hop.owner = "break", "NIC202" if p_fabric is not None else "NIC203"
            hop.note = f"priority {want} has no PFC on the NIC"
        ch.hops.append(hop)
    ch.hops.append(_dcqcn_hop(nics, p_fabric if p_fabric is not None else prio))
    return prio


def _dcqcn_hop(nics, prio) -> Hop:
    if roce.uses_dcqcn(nics) is False:
        cc = roce.first(nics, lambda n: n.cc_algorithm)
        return Hop("NIC congestion control", f"{cc.value} (DCQCN off on purpose)", cc.span)
    if prio is None:
        return Hop("NIC DCQCN", "unknown priority", None, "unknown")
    rp = roce.first(nics, lambda n: n.rp_enabled(prio))
    np_ = roce.first(nics, lambda n: n.np_enabled_any())
    if rp is None and np_ is None:
        return Hop("NIC DCQCN", f"not stated for priority {prio}", None, "unknown")
    words = f"RP {_onoff(rp)} for priority {prio}, NP {_onoff(np_)} (per port)"
    hop = Hop("NIC DCQCN", words, (rp or np_).span)
    off = rp if rp is not None and not rp.value else (np_ if np_ is not None and not np_.value else None)
    if off is not None:
        hop.status, hop.owner, hop.span = "break", "NIC204", off.span
    return hop


def _switch_hops(ch: Chain, sw, dscp: int, q, source, it) -> None:
    rows = roce.landings(sw, dscp)
    if not rows:
        ch.hops.append(Hop(f"{sw.name} DSCP->TC", f"DSCP {dscp}: no map entry netlint can read", None, "unknown"))
        return
    r = rows[0]
    hop = Hop(f"{sw.name} DSCP->TC", f"DSCP {dscp} -> TC {r.tc}" + (" (default TC)" if r.defaulted else ""), r.span)
    if not r.lossless:
        hop.status, hop.note = "break", "a class without PFC"
        hop.owner = {"nccl": "XC601", "unset": "XC601", "nic": "XC610"}.get(source, "QOS101")
    elif q is not None and q != r.tc:
        hop.status, hop.owner, hop.note = "break", "XC610", f"the NIC sends DSCP {dscp} on priority {q}"
    ch.hops.append(hop)
    pg, queue = sw.pg_of_tc(r.tc), sw.queue_of_tc(r.tc)
    ch.hops.append(Hop(f"{sw.name} PG/queue", f"TC {r.tc} -> PG {_u(pg)}, queue {_u(queue if queue is not None else r.tc)}",
                       None, "ok" if pg is not None else "unknown"))
    spans = roce.pfc_tokens(sw, r.tc, 1)
    hop = Hop(f"{sw.name} PFC", f"priority {r.tc} " + ("paused" if r.lossless else "not paused") +
              f" (PFC on {_prios(sorted(sw.lossless_priorities()))})", spans[0] if spans else None)
    if not r.lossless:
        hop.status, hop.owner = "break", ch.hops[-2].owner
    ch.hops.append(hop)
    ecn = sw.ecn_on_tc(r.tc)
    hop = Hop(f"{sw.name} ECN", {True: "marks", False: "off", None: "not stated"}[ecn] + f" on TC {r.tc}'s queue",
              None, "ok" if ecn else "unknown")
    if ecn is False:
        hop.status, hop.owner = "break", "QOS104" if r.lossless else "NIC208"
    ch.hops.append(hop)


def _cnp_hops(ch: Chain, ws, nics, it) -> None:
    dscp = roce.first(nics, lambda n: n.cnp_dscp.value)
    prio = roce.first(nics, lambda n: n.cnp_priority.value)
    if dscp is None and prio is None:
        if it.cnp_dscp is not None:
            ch.hops.append(Hop("CNP", f"NIC not stated; the inventory's CNP class DSCP {it.cnp_dscp.value}",
                               it.cnp_dscp.span, "unknown"))
        return
    words = ", ".join(x for x in (f"DSCP {dscp.value}" if dscp is not None else "",
                                  f"priority {prio.value}" if prio is not None else "") if x)
    implied = " (implied by the operator)" if dscp is not None and dscp.implied else ""
    hop = Hop("CNP", f"NIC sends CNPs with {words}{implied}", (dscp or prio).span)
    for v, want in ((dscp, it.cnp_dscp), (prio, it.cnp_priority)):
        if v is not None and want is not None and v.value != want.value:
            hop.status, hop.owner, hop.span = "break", "NIC205", v.span
            hop.note = f"the inventory's CNP class is {want.value}"
    ch.hops.append(hop)
    if dscp is None:
        return
    for sw in roce.switches(ws):
        rows = roce.landings(sw, dscp.value)
        if rows:
            r = rows[0]
            sw_hop = Hop(f"{sw.name} CNP class", f"DSCP {dscp.value} -> TC {r.tc}" +
                         (" (default TC)" if r.defaulted else ""), r.span)
            ref = roce.landings(sw, it.cnp_dscp.value) if it.cnp_dscp is not None else []
            if ref and ref[0].tc != r.tc:
                sw_hop.status, sw_hop.owner = "break", "NIC205"
                sw_hop.note = f"the switch's CNP class is TC {ref[0].tc}"
            ch.hops.append(sw_hop)


def _prios(values) -> str:
    return ",".join(map(str, values)) or "none"


def _onoff(v) -> str:
    return "?" if v is None else ("on" if v.value else "off")


def _u(v) -> str:
    return "?" if v is None else str(v)
