from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Severity
from netlint.qos import switches
from netlint.qos.common import intent, inventory_related, names
from netlint.rules.base import Rule


class CnpClassUnprotected(Rule):
    """CNP traffic lands in a queue that drops it, or shares a non-strict queue with data.

    What: needs the inventory's `fabric.roce.cnp_dscp` (netlint never assumes 48: the Arista 7060X6
    render maps 48 to TC 0 and NVIDIA's NIC operator uses CNP DSCP 4). The CNP DSCP is followed
    through each DSCP→TC map bound to ports (an unmapped DSCP goes to TC 0), then to its egress queue:
    - error: the TC is not PFC-enabled and the queue's WRED profile drops green packets
      (`wred_green_enable` / NVUE `red enable`): congestion notifications are discarded exactly
      when they are needed;
    - warning: the queue's scheduler is not strict priority and other DSCPs share the TC, so CNPs
      wait behind data (NVIDIA's RoCE default: CNP → TC 6, strict; a dedicated DWRR queue, as in
      SONiC's AZURE 48 → TC 6, is accepted).

    Why: DCQCN reacts to CNPs; delayed or dropped CNPs mean senders keep blasting, queues hit the
    PFC threshold and the fabric pauses instead of rate-limiting.

    Bad (inventory `cnp_dscp: 48`): `"DSCP_TO_TC_MAP": {"AZURE": {"48": "0", "26": "0", ...}}` with
    queue 0 DWRR.  Good: `"48": "6"` with `SCHEDULER` of queue 6 `"type": "STRICT"`.

    Fix: map the CNP DSCP to a dedicated TC whose queue is strict priority; no automatic fix.

    Source: NVIDIA Cumulus Linux 5.14 User Guide, "RDMA over Converged Ethernet - RoCE" (default
    RoCE configuration: switch priority 6 → traffic class 6 (CNP), strict);
    sonic-net/sonic-buildimage@086b03bd `files/build_templates/qos_config.j2` L319 (AZURE 48 → TC
    6), `src/sonic-config-engine/tests/sample_output/py3/qos-arista7060x6.json` L88 (48 → TC 0);
    Mellanox/nic-configuration-operator README, `roceOptimized` (`CNP_DSCP_P1=4`).
    """

    code = "QOS109"
    name = "cnp-class-unprotected"
    severity = Severity.ERROR
    summary = "CNP class not strict priority, or in a lossy queue that drops"

    def check(self, ws) -> Iterator[Finding]:
        it = intent(ws)
        if it.cnp_dscp is None:
            return
        d = it.cnp_dscp.value
        for sw in switches(ws):
            for tc, span, port_names in sw.dscp_to_tc(d):
                if tc is None and not sw.format.startswith("sonic"):
                    continue  # only SONiC's fallback (the port default TC 0) is known
                landed = 0 if tc is None else tc
                ports = [sw.ports[n] for n in port_names]
                qmap = sw.map_for(ports[0], "dscp_to_tc") if ports else None
                mname = qmap.name if qmap is not None else "?"
                span = span or sw.span
                dropping, shared_nonstrict = [], []
                for port in ports:
                    q = sw.queue_of_tc(landed, port)
                    q = landed if q is None else q
                    qc = port.queues.get(q)
                    if qc is None:
                        continue
                    wp = sw.wred_of(qc)
                    if wp is not None and wp.drops_green and landed not in port.pfc_set():
                        dropping.append((port, q, wp))
                        continue
                    sch = sw.scheduler_of(qc)
                    if sch is not None and sch.type is not None and sch.type.value != "strict" and qmap is not None:
                        others = sorted(k for k, v in qmap.entries.items() if v.value == landed and k != d)
                        if landed == 0 and len(qmap.entries) < 64 and sw.format.startswith("sonic"):
                            others.append(-1)
                        if others:
                            shared_nonstrict.append((port, q, sch, others))
                if dropping:
                    port, q, wp = dropping[0]
                    yield self.finding(
                        f"CNP DSCP {d} (inventory fabric.roce.cnp_dscp) lands in lossy TC {landed}, queue {q}, whose "
                        f"WRED profile '{wp.name}' drops packets, on {len(dropping)} port(s) "
                        f"({names(r[0].name for r in dropping)}): CNPs are discarded under congestion",
                        span, key=f"{sw.name}:cnp:{mname}:drop",
                        related=inventory_related(it.cnp_dscp, "fabric.roce.cnp_dscp"))
                elif shared_nonstrict:
                    port, q, sch, others = shared_nonstrict[0]
                    shown = ",".join(str(o) for o in others[:6] if o >= 0) + (" …" if len(others) > 6 or -1 in others else "")
                    yield self.finding(
                        f"CNP DSCP {d} (inventory fabric.roce.cnp_dscp) lands in TC {landed}, queue {q}, shared with "
                        f"DSCP {shown} and scheduled {sch.type.value.upper()} (scheduler '{sch.name}'), not strict "
                        f"priority, on {len(shared_nonstrict)} port(s) ({names(r[0].name for r in shared_nonstrict)})",
                        span, key=f"{sw.name}:cnp:{mname}:sched", severity=Severity.WARNING,
                        related=inventory_related(it.cnp_dscp, "fabric.roce.cnp_dscp"))
