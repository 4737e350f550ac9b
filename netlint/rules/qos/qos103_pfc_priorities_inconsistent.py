from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Fix, Related, Severity
from netlint.models.switch import Port, SwitchQos
from netlint.qos import switch_text, switches
from netlint.qos.common import fabric_switches, intent, is_dual_tor, lossless_ports, names, related_ports
from netlint.qos.edits import pfc_edit
from netlint.rules.base import Rule


def _reachable(sw: SwitchQos, port: Port) -> set[int] | None:
    """TCs that DSCP-classified traffic can reach on this port (None = unknown: any)."""
    m = sw.map_for(port, "dscp_to_tc")
    if m is None:
        return None
    out = {s.value for s in m.entries.values()}
    if len(m.entries) < 64 and sw.format.startswith("sonic"):
        out.add(0)  # unmapped DSCPs use SONiC's port default TC
    return out


class PfcPrioritiesInconsistent(Rule):
    """PFC priorities differ between ports of a switch, or between switches of the fabric.

    What: within a switch, a priority that is PFC-enabled on some ports must be enabled on every
    other PFC port whose DSCP→TC map can send traffic to it. Ports whose map cannot reach that TC
    (SONiC dual-ToR uplinks use a map without the remapped TCs 2 and 6) and ports that configure no
    PFC at all are not compared. Across switches (only those the inventory lists: one fabric), a
    priority lossless on some switches must be lossless on all; the inventory's RoCE priority itself
    is QOS101's job.

    Why: PFC works hop by hop: a link whose ends disagree drops or never pauses that class, so one
    port with "3" among ports with "3,4" makes class 4 lossy through it.

    Bad:
        "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}, "Ethernet4": {"pfc_enable": "3"}}
    Good:
        "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}, "Ethernet4": {"pfc_enable": "3,4"}}

    Fix: enable the same priorities on every lossless port (unsafe: changes flow control).

    Source: IEEE 802.1Qbb (PFC pauses one priority per link, so both ends must enable it);
    sonic-net/sonic-buildimage@086b03bd `files/build_templates/qos_config.j2` L470-474 (stock
    `pfc_enable` 3,4 on every port; 2,3,4,6 on dual-ToR ports with DSCP remap); sonic-net/SONiC
    `doc/qos/tunnel_dscp_remapping.md` (bounced-back traffic remapped 3→2, 4→6 to avoid a PFC
    deadlock).
    """

    code = "QOS103"
    name = "pfc-priorities-inconsistent"
    severity = Severity.ERROR
    summary = "PFC priorities differ across ports or across switches"

    def check(self, ws) -> Iterator[Finding]:
        for sw in switches(ws):
            yield from self._ports(sw, switch_text(ws, sw))
        yield from self._switches(ws)

    def _ports(self, sw: SwitchQos, text: str | None) -> Iterator[Finding]:
        ports = lossless_ports(sw)
        if len(ports) < 2:
            return
        having: dict[int, list[Port]] = {}
        for p in ports:
            for prio in p.pfc_set():
                having.setdefault(prio, []).append(p)
        for prio, with_it in sorted(having.items()):
            lacking = [p for p in ports if prio not in p.pfc_set()
                       and (_reachable(sw, p) is None or prio in _reachable(sw, p))]
            if not lacking:
                continue
            first = lacking[0]
            span = first.pfc_enable_token.span
            edits, seen = [], set()
            for p in lacking:
                if p.pfc_enable_token.span not in seen:
                    seen.add(p.pfc_enable_token.span)
                    edits.append(pfc_edit(sw, p, sorted(p.pfc_set() | {prio}), text))
            fix = Fix(f"enable PFC on priority {prio}", tuple(edits), safe=False) \
                if edits and None not in edits else None
            yield self.finding(
                f"PFC priority {prio} is enabled on {len(with_it)} port(s) ({names(p.name for p in with_it)}) "
                f"but not on {len(lacking)} other PFC port(s) ({names(p.name for p in lacking)}) whose traffic "
                f"can reach TC {prio}", span, key=f"{sw.name}:pfc-consistency:{prio}",
                fix=fix,
                related=related_ports(sw, with_it, "priority {port} enabled here".replace("{port}", str(prio))
                                      + " ({port})"))

    def _switches(self, ws) -> Iterator[Finding]:
        fab = [sw for sw in fabric_switches(ws) if lossless_ports(sw)]
        if len(fab) < 2:
            return
        it = intent(ws)
        skip = it.priority.value if it.priority is not None else None
        # the dual-ToR remap priorities (2, 6) belong to that port role, not to the fabric's classes
        sets = {sw.name: {p for port in lossless_ports(sw) for p in port.pfc_set()
                          if not (is_dual_tor(port) and p in (2, 6))} for sw in fab}
        for prio in sorted(set().union(*sets.values())):
            if prio == skip:
                continue
            have = [sw for sw in fab if prio in sets[sw.name]]
            lack = [sw for sw in fab if prio not in sets[sw.name]]
            if not lack:
                continue
            for sw in lack:
                first = lossless_ports(sw)[0]
                related = [Related(h.lossless_priorities()[prio][0], f"priority {prio} is lossless on {h.name}")
                           for h in have[:5]]
                yield self.finding(
                    f"PFC priority {prio} is lossless on {names(h.name for h in have)} but not on {sw.name} "
                    f"(PFC on {','.join(map(str, sorted(sets[sw.name])))})", first.pfc_enable_token.span,
                    key=f"{sw.name}:pfc-fabric:{prio}", related=related)
