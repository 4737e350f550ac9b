from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related
from netlint.rules.base import Rule


class EcnOffOnSwitchQueue(Rule):
    """The NIC runs DCQCN on the RoCE priority, but the switch queue that carries it does not mark ECN.

    What: the NIC has the DCQCN reaction point on for the priority it gives the RoCE DSCP (see NIC203
    for which DSCP). Each inventory switch puts that DSCP in a TC; when that TC is not PFC-enabled (a
    lossy class, as in NVIDIA's lossy "Resilient RoCE" designs that rely on ECN alone) and a port's
    egress queue for it has no WRED profile marking green traffic, DCQCN has no signal there. The
    finding is on the switch's WRED profile (or the queue without one): that is where ECN is turned on;
    the NIC's enable is the related location. A lossless queue without ECN is QOS104's finding, not
    this one.

    Why: DCQCN only slows senders when switches mark ECN on the queue the traffic sits in. In a lossy
    class without marking there is neither PFC nor a rate cut: the queue overflows, packets drop and
    RDMA retransmits go-back-N.

    Bad:  NIC `rp_enable: [3]`, switch `dscp_to_tc: {26: 1}` with queue 1's WRED `ecn: ecn_none`
    Good: queue 1's WRED profile `ecn: ecn_all` (or DSCP 26 in a lossless, marking class)

    Fix: turn ECN marking on in the queue's WRED profile (QOS104 gives the edit for lossless queues);
    no automatic fix here.

    Source: Zhu et al., "Congestion Control for Large-Scale RDMA Deployments" (DCQCN), SIGCOMM 2015;
    MLNX_OFED "Explicit Congestion Notification (ECN)"
    (https://docs.nvidia.com/networking/display/mlnxofedv23041130/explicit+congestion+notification+(ecn));
    sonic-net/sonic-buildimage@086b03bd `files/build_templates/qos_config.j2` L493-530 (WRED profile
    `ecn` per queue); sonic-net/sonic-buildimage#21891 (no ECN marks: `np_ecn_marked_roce_packets 0`).
    """

    code = "NIC208"
    name = "ecn-off-on-switch-queue"
    summary = "NIC runs DCQCN on a priority whose switch queue never marks ECN"
    tags = ("nic", "switch", "cross-file")

    def check(self, ws) -> Iterator[Finding]:
        from netlint.nic import roce

        if not roce.roce_transport(ws):
            return
        sws = roce.switches(ws)
        if not sws:
            return
        done: set[tuple] = set()
        for nic in ws.nics:
            peers = roce.peers(ws, nic)
            if roce.uses_dcqcn(peers) is False or not nic.rp_enable:
                continue
            for dscp, _ in roce.roce_dscps(ws, nic):
                q = roce.priority_of_dscp(peers, dscp)
                rp = nic.rp_enabled(q.value) if q is not None else None
                if rp is None or not rp.value:
                    continue
                for sw in sws:
                    for land in roce.landings(sw, dscp):
                        if land.lossless or (sw.name, land.tc) in done:
                            continue   # a lossless queue without ECN is QOS104's
                        hit = _unmarked(sw, land.tc)
                        if hit is None:
                            continue
                        done.add((sw.name, land.tc))
                        span, what = hit
                        yield self.finding(
                            f"{sw.name} puts RoCE DSCP {dscp} in lossy TC {land.tc}, whose queue {what}, while "
                            f"{nic.label} runs DCQCN on priority {q.value}: no PFC and no ECN, DCQCN never "
                            f"slows the senders", span, key=f"{sw.name}:tc{land.tc}:ecn",
                            related=[Related(land.span, f"{sw.name}: DSCP {dscp} -> TC {land.tc}"),
                                     Related(rp.span, f"{nic.label}: DCQCN reaction point on priority {q.value}")])


def _unmarked(sw, tc):
    """(span, words) of the first port queue of ``tc`` that does not mark green traffic, or None."""
    for port in sw.ports.values():
        q = sw.queue_of_tc(tc, port)
        qc = port.queues.get(tc if q is None else q)
        if qc is None:
            continue
        wp = sw.wred_of(qc)
        if qc.wred_profile is not None and wp is None:
            continue   # dangling reference: NL011
        if wp is None:
            return qc.span, f"on {port.name} has no ECN/WRED profile"
        if not wp.ecn_marks_green:
            span = wp.ecn.span if wp.ecn is not None else (wp.key_span or wp.span)
            return span, f"uses WRED profile '{wp.name}', which does not mark ECN"
    return None
