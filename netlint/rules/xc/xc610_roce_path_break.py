from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related
from netlint.rules.base import Rule


class RocePathBreak(Rule):
    """The RoCE path breaks between the NIC and the fabric: the NIC's class or priority is not the fabric's.

    What: the two NIC↔fabric hops of the RoCE path no other rule owns (`netlint path` shows every hop
    and the rule that owns each break; the table is in `netlint/nic/roce.py`):
    - a ToS the NIC forces on all RoCE traffic (mlx5 global traffic class; the NIC Configuration
      Operator's `qos.tos` when no launch sets `NCCL_IB_TC`) whose DSCP is not the inventory's RoCE DSCP
      (`fabric.roce.dscp`), or, without one, lands in a class an inventory switch does not PFC-protect.
      The NIC file is the place to fix (XC601 does not judge `NCCL_IB_TC` when every node group's NICs
      replace it);
    - the NIC puts the RoCE DSCP on another priority than the fabric's RoCE priority (the inventory's
      `fabric.roce.priority`, else the lossless TC every inventory switch puts that DSCP in): its
      DSCP→priority map entry, or under DSCP trust the ConnectX default `DSCP >> 3`.
    Every other hop of the chain is shown as a related location.

    Why: PFC and ECN act per priority at each hop. If the switch classifies the RoCE DSCP into TC 4
    and pauses priority 4 while the NIC sends that traffic on priority 3, the pause frames stop
    nothing and the switch's lossless buffer overflows; a NIC that forces DSCP 10 on a fabric whose
    lossless class is DSCP 26 sends every RDMA packet lossy whatever NCCL asks for.

    Bad:  NIC YAML `dscp_to_priority: {26: 3}` with the inventory's `roce: {dscp: 26, priority: 4}`
    Good: `dscp_to_priority: {26: 4}`

    Fix: the fabric's priority in the written map entry, or the fabric's DSCP in the written ToS
    (keeping ECT(0)); for a default map or a tool dump the message names the `mlnx_qos --dscp2prio` /
    sysfs command. Unsafe: it moves RDMA traffic to another class.

    Source: NVIDIA/doroce-linux@6dc37a78 `doRoCE.sh` L151 ("DSCP=TOS>>2, PRIO=DSCP>>3") and L436-440
    (the global traffic class forces the verbs TCLASS); Mellanox mlnx-ofa_kernel as packaged in
    DOCA-OFED 25.10 (knneth/mlnx-ofa_kernel@28502354) `drivers/infiniband/hw/mlx5/main_ext.c` L429-445;
    Mellanox/nic-configuration-operator@8bfbeb34 README L94 (`tos`); Linux
    `drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c` (gregkh/linux@0c81c68f, `mlx5e_set_dscp2prio`);
    IEEE 802.1Qbb; sonic-net/sonic-buildimage@086b03bd `files/build_templates/qos_config.j2` L269-335.
    """

    code = "XC610"
    name = "roce-path-break"
    summary = "NIC class or priority is not the fabric's RoCE class"
    tags = ("nic", "switch", "cross-file")

    def check(self, ws) -> Iterator[Finding]:
        from netlint.nic import roce

        if not roce.roce_transport(ws):
            return
        yield from self._forced_tos(ws)
        yield from self._priority(ws)

    # -- a ToS the NIC forces ---------------------------------------------------------------------
    def _forced_tos(self, ws) -> Iterator[Finding]:
        from netlint.nic import roce
        from netlint.nic.fixes import token_fix

        it = roce.intent(ws)
        sws = roce.switches(ws)
        nccl_sets = bool(roce.nccl_tos(ws))
        for nic in ws.nics:
            v = nic.traffic_class.value
            what = "forces ToS"
            if v is None and not nccl_sets:
                v, what = nic.dms_tos.value, "sets the default ToS"
            if v is None or not isinstance(v.value, int):
                continue
            dscp, ecn = v.value >> 2, v.value & 3
            keep = ecn if ecn in (0, 2) else 2   # CE / ECT(1) are NIC209's
            related: list[Related] = []
            if it.dscp is not None:
                if dscp == it.dscp.value:
                    continue
                target = it.dscp.value
                msg = f"{nic.label} {what} {v.value} (DSCP {dscp}) on all RoCE traffic, but the inventory's RoCE " \
                      f"class is DSCP {target}"
                related.append(Related(it.dscp.span, f"fabric.roce.dscp: {target}"))
            else:
                lossy = [r for sw in sws for r in roce.landings(sw, dscp) if not r.lossless]
                if not lossy:
                    continue
                r = lossy[0]
                how = "does not map it (default TC 0)" if r.defaulted else f"puts it in TC {r.tc}"
                msg = f"{nic.label} {what} {v.value} (DSCP {dscp}) on all RoCE traffic; {r.switch.name} {how}, " \
                      f"a class without PFC"
                related += [Related(x.span, f"{x.switch.name}: DSCP {dscp} -> TC {x.tc}") for x in lossy[:3]]
                from netlint.rules.xc.xc601_ib_tc_lossy_class import _lossless_dscps

                good = _lossless_dscps([s for s in sws])
                target = good[0] if good else None
            fix = None
            if target is not None:
                new = (target << 2) | keep
                fix = token_fix(ws, nic, v, str(new), f"ToS {new} (DSCP {target})")
                msg += f"; ToS {new} is DSCP {target}"
            yield self.finding(msg, v.span, key=f"{nic.name}:tos", fix=fix, related=related)

    # -- the NIC's priority for the RoCE DSCP -------------------------------------------------------
    def _priority(self, ws) -> Iterator[Finding]:
        from netlint.nic import roce
        from netlint.nic.fixes import token_fix

        for nic in ws.nics:
            wanted = roce.fabric_priorities(ws, nic)
            if len(wanted) != 1:
                continue   # several fabric priorities: NIC202 judges the vector, the map is ambiguous
            p, stmt, rows = wanted[0]
            for dscp, _ in roce.roce_dscps(ws, nic):
                q = nic.priority_of_dscp(dscp)
                if q is None or q.value == p:
                    continue
                how = "by default (DSCP >> 3)" if q.implied else f"({q.via})"
                if stmt is not None:
                    why = f"the inventory's RoCE priority is {p}"
                    related = [Related(stmt.span, f"fabric.roce.priority: {p}")]
                else:
                    why = f"{rows[0].switch.name} puts DSCP {dscp} in TC {p} and pauses priority {p}"
                    related = []
                related += [Related(r.span, f"{r.switch.name}: DSCP {dscp} -> TC {r.tc}") for r in rows[:3]]
                pfc = nic.pfc.value
                if pfc is not None:
                    related.append(Related(pfc.span, f"NIC PFC on {','.join(map(str, pfc.value)) or 'none'}"))
                msg = (f"{nic.label} puts RoCE DSCP {dscp} on priority {q.value} {how}, but {why}: pause frames "
                       f"and ECN act on a priority the NIC does not send it on")
                fix = None if q.implied else token_fix(ws, nic, q, str(p), f"DSCP {dscp} -> priority {p}")
                if fix is None:
                    msg += f"; mlnx_qos -i <if> --dscp2prio set,{dscp},{p}"
                yield self.finding(msg, q.span, key=f"{nic.name}:dscp{dscp}:prio", fix=fix, related=related)
