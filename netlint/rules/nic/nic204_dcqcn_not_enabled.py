from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related
from netlint.rules.base import Rule


class DcqcnNotEnabled(Rule):
    """DCQCN is off on the RoCE priority: at the reaction point (the sender) or the notification point.

    What: on the RoCE priority (the inventory's `fabric.roce.priority`, else the lossless TC the
    switches give the RoCE DSCP, else the priority the NIC gives it), the NIC must have the DCQCN
    reaction point on (`/sys/class/net/<if>/ecn/roce_rp/enable/<p>`, firmware `ROCE_CC_PRIO_MASK` bit
    p, the operator's `qos.ecn`, NIC YAML `dcqcn.rp_enable`) and the notification point on
    (`ecn/roce_np/enable/<p>`). CNP generation is handled per port, any enabled NP priority enabling it,
    so the NP is judged as "on for some priority". Silent when a file of the NIC runs another
    congestion control: the Spectrum-X profile turns DCQCN (slot 15) off in favour of Spectrum-X CC
    (slot 0) on purpose.

    Why: ECN marks from the switches reach the receiver; its NP turns them into CNPs and the sender's RP
    cuts its rate. With either end off, congestion is never signalled or never acted on: queues fill
    until PFC pauses the link, and pauses spread through the fabric (congestion spreading, PFC storms).

    Bad:  `ROCE_CC_PRIO_MASK_P1: "0x10"` (DCQCN on priority 4 only) with RoCE on priority 3
    Good: `ROCE_CC_PRIO_MASK_P1: "0x18"` (priorities 3 and 4), or the default 255

    Fix: set bit p of the written `ROCE_CC_PRIO_MASK` (firmware, after a reboot), or add p to NIC YAML
    `rp_enable` / `np_enable`; for a saved sysfs dump the message names the sysfs file. Unsafe.

    Source: DOCA "DCQCN CC Parameters" (https://networking-docs.nvidia.com/doca/archive/3-4-0/dcqcn-cc-parameters:
    `ROCE_CC_PRIO_MASK` / MLNX_OFED "Enable" per priority); MLNX_OFED "Explicit Congestion Notification
    (ECN)" (https://docs.nvidia.com/networking/display/mlnxofedv23041130/explicit+congestion+notification+(ecn));
    NVIDIA "HowTo Configure DCQCN (RoCE CC) values for ConnectX-4 (Linux)" as quoted in ROCm/mori#658
    (NP: "Sending CNP packets is handled globally per port"); Mellanox/network-operator#269 (`echo 1 >
    …/ecn/roce_np/enable/3`, `…/roce_rp/enable/3`); Mellanox/nic-configuration-operator@3faed91b
    `bindata/spectrum-x/RA2.1.yaml` (slot 15 "DCQCN" off, slot 0 on); Zhu et al., "Congestion Control
    for Large-Scale RDMA Deployments", SIGCOMM 2015.
    """

    code = "NIC204"
    name = "dcqcn-not-enabled"
    summary = "DCQCN RP or NP off on the RoCE priority"
    tags = ("nic",)

    def check(self, ws) -> Iterator[Finding]:
        from netlint.nic import roce

        if roce.other_transport(ws):
            return
        for nic in ws.nics:
            if not nic.rp_enable and not nic.np_enable:
                continue
            peers = roce.peers(ws, nic)
            if roce.uses_dcqcn(peers) is False:
                continue   # Spectrum-X CC (or another algorithm) replaces DCQCN on purpose
            for p, why, anchor in self._priorities(ws, nic, peers):
                rp = nic.rp_enabled(p)
                if rp is not None and not rp.value:
                    yield self._finding(ws, nic, "reaction point", rp, p, why, anchor)
            np_any = nic.np_enabled_any()
            if np_any is not None and not np_any.value:
                prios = self._priorities(ws, nic, peers)
                if prios:
                    p, why, anchor = prios[0]
                    yield self._finding(ws, nic, "notification point", np_any, p, why, anchor, any_prio=True)

    @staticmethod
    def _priorities(ws, nic, peers) -> list:
        from netlint.nic import roce

        wanted = roce.fabric_priorities(ws, nic)
        if wanted:
            return [(p, f"the inventory's RoCE priority" if stmt is not None else
                     f"the RoCE priority ({rows[0].switch.name} TC {p})", stmt.span if stmt is not None else
                     rows[0].span) for p, stmt, rows in wanted]
        out = {}
        for dscp, _ in roce.roce_dscps(ws, nic):
            q = roce.priority_of_dscp(peers, dscp)
            if q is not None:
                out.setdefault(q.value, (q.value, f"the priority the NIC gives RoCE DSCP {dscp}", q.span))
        return list(out.values())

    def _finding(self, ws, nic, point, value, p, why, anchor, any_prio=False) -> Finding:
        from netlint.nic.fixes import mask_text, token_fix

        where = "on every priority" if any_prio else f"on priority {p}"
        msg = (f"{nic.label}: DCQCN {point} is off {where}, {why}: "
               + ("ECN marks never become CNPs" if point.startswith("notification") else
                  "the sender ignores CNPs and keeps its rate"))
        fix = None
        mask = nic.cc_prio_mask.firmware
        if value is mask or (mask is not None and value.span == mask.span):
            fix = token_fix(ws, nic, mask, mask_text(mask.raw, mask.value | (1 << p)),
                            f"DCQCN on priority {p} ({mask.via})")
        elif nic.format == "native" and value.via in ("dcqcn.rp_enable", "dcqcn.np_enable"):
            listed = nic.np_enable if any_prio else nic.rp_enable
            on = sorted({q for q, s in listed.items() if s.runtime is not None and s.runtime.value} | {p})
            fix = token_fix(ws, nic, value, "[" + ", ".join(map(str, on)) + "]", f"DCQCN on priority {p}")
        elif nic.format in ("sysfs", "mlnx_qos", "mlxconfig"):
            leg = "roce_np" if any_prio else "roce_rp"
            msg += f"; echo 1 > /sys/class/net/<if>/ecn/{leg}/enable/{p}"
        related = [Related(anchor, f"RoCE priority {p}")] if anchor is not None and anchor != value.span else []
        return self.finding(msg, value.span, key=f"{nic.name}:{point}:{p}", fix=fix, related=related)
