from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.nccl import scope
from netlint.nccl.fixes import add_line, value_fix
from netlint.nccl.values import int_value
from netlint.recommended import ROCE_DSCP as PREFERRED_DSCP, tos  # NCCL_IB_TC=106 = 26<<2 | ECT(0)
from netlint.rules.base import Rule

TC_VARS = ("NCCL_IB_TC", "NCCL_IB_FIFO_TC", "NCCL_GIN_IB_TC")


def _intent(ws):
    try:
        roce = ws.inventory.fabric.roce
        return roce.dscp if roce is not None else None
    except AttributeError:
        return None


def _transport(ws):
    try:
        return ws.inventory.fabric.transport.value
    except AttributeError:
        return None


def _switches(ws):
    """The switches of this cluster's fabric: those the inventory lists. Without an inventory
    nothing says an env file and a switch config belong to one cluster, so joining them would be a
    guess (a folder of configs from several clusters would be cross-checked against each other)."""
    from netlint.models.switch import SwitchQos
    from netlint.qos.common import fabric_switches

    return [sw for sw in fabric_switches(ws) if isinstance(sw, SwitchQos) and sw.has_pfc_info()]


def _landing(sw, dscp):
    """[(tc, span, ports, defaulted)] where ``dscp`` lands on ``sw`` (:func:`netlint.nic.roce.landings`:
    a DSCP missing from a bound SONiC map goes to the default TC 0, elsewhere it is unknown and skipped)."""
    from netlint.nic.roce import landings

    return [(r.tc, r.span, r.ports, r.defaulted) for r in landings(sw, dscp)]


def _pfc(sw) -> str:
    prios = sorted(sw.lossless_priorities())
    return ",".join(map(str, prios)) if prios else "none"


def _lossless_dscps(sws) -> list[int]:
    """DSCPs that every switch maps to a PFC-enabled TC, ECN-marked ones first, 26 preferred."""
    good = []
    for d in range(64):
        rows = [(sw, r) for sw in sws for r in _landing(sw, d)]
        if not rows or any(not sw.pfc_enabled_on(r[0]) for sw, r in rows):
            continue
        if len({sw.name for sw, _ in rows}) < len(sws):
            continue
        ecn = all(sw.ecn_on_tc(r[0]) is not False for sw, r in rows)
        good.append((not ecn, d != PREFERRED_DSCP, d))
    return [d for _, _, d in sorted(good)]


def _nic_tos(ws) -> list:
    """Each node group's declared NIC ToS (`roce_tos`, None where undeclared)."""
    try:
        return [g.roce_tos for g in ws.inventory.node_groups]
    except AttributeError:
        return []


def _nic_sets_tos(ws) -> bool:
    """A NIC config that sets a default RoCE traffic class/ToS overrides an unset NCCL_IB_TC. (RDMA-CM's
    default_roce_tos is not such a setting: NCCL's verbs QPs never go through RDMA-CM.)"""
    for nic in ws.nics:
        for attr in ("traffic_class", "dms_tos"):  # NicQos Settings: set when either layer has a value
            setting = getattr(nic, attr, None)
            if setting is not None and getattr(setting, "value", setting) is not None:
                return True
    return False


def _nic_files_force(ws) -> bool:
    """Every node group has a NIC file that sets the mlx5 global traffic class: NCCL_IB_TC never reaches
    the wire, and XC610 judges the NICs' class at the NIC file."""
    from netlint.nic.join import nic_groups

    rows = nic_groups(ws) if ws.inventory is not None else []
    return bool(rows) and all(any(n.traffic_class.value is not None for n in nics) for _, nics in rows)


def _disabled(env_vars: dict) -> bool:
    """IB turned off or sockets forced: the traffic class is moot."""
    ib = env_vars.get("NCCL_IB_DISABLE")
    net = env_vars.get("NCCL_NET")
    return bool((ib is not None and int_value(ib.known or "") not in (None, 0))
                or (net is not None and (net.known or "").strip().lower() == "socket"))


def _other_net(env_vars: dict) -> bool:
    """The launch may not use NCCL's own IB/RoCE transport: `NCCL_NET` names another network (Socket,
    a plugin's "AWS Libfabric"; a value netlint cannot read counts too), or `NCCL_NET_PLUGIN` loads a
    plugin, which NCCL tries before its internal IB transport."""
    net = env_vars.get("NCCL_NET")
    if net is not None:
        return (net.known or "").strip().lower() != "ib"
    plugin = env_vars.get("NCCL_NET_PLUGIN")
    return plugin is not None and (plugin.known is None or plugin.known.strip().lower() not in ("", "none"))


class IbTcLossyClass(Rule):
    """`NCCL_IB_TC` sends RoCE traffic into a switch class without PFC (or unset: DSCP 0).

    What: NCCL writes `NCCL_IB_TC` unchanged into the RoCE packets' IP ToS byte, so the DSCP is
    `NCCL_IB_TC >> 2` (106 → DSCP 26; 0 when unset). netlint follows that DSCP through every switch's
    DSCP→TC map and checks that the TC has PFC (lossless) and, as a warning, that ECN marks its queue.
    When the inventory declares the RoCE class (`fabric.roce.dscp`) that intent wins: NCCL's DSCP must
    equal it (whether the switches treat that DSCP right is QOS101's business). The rule runs only on
    a RoCE fabric (inventory `transport: roce`): InfiniBand has no DSCP, and on `efa` NCCL's traffic
    goes through the aws-ofi-nccl plugin, which never reads `NCCL_IB_TC`.
    `NCCL_IB_TC` unset is the same fault with DSCP 0, checked per launch (a job, or an env nobody
    sources) that really runs NCCL's RoCE transport: it configures it (sets some `NCCL_IB_*`), does
    not turn IB off or pick another network (`NCCL_IB_DISABLE=1`, `NCCL_NET` other than `IB`, an
    `NCCL_NET_PLUGIN`), and no layer of it sets the class (an nccl.conf, an env file, the script, a
    `mpirun -x`, an `NCCL_CONF_FILE` netlint cannot see, an unresolved `source`). It is an error when
    the inventory states the RoCE class (`fabric.roce.dscp`), else a warning. A node group's
    `roce_tos` (the ToS its NICs force on every RoCE QP, the mlx5 global traffic class) replaces
    NCCL's class: when every group declares one, that ToS is judged instead of DSCP 0 and a set
    `NCCL_IB_TC` is not (it never reaches the wire). The same holds when every node group has a NIC
    file (inventory `nic_configs`) that sets the global traffic class: XC610 then judges the NICs'
    class at the NIC file. RDMA-CM's `default_roce_tos` does not count:
    NCCL builds its QPs with verbs, not RDMA-CM.
    `NCCL_IB_FIFO_TC` and `NCCL_GIN_IB_TC` are checked the same way when set. Only the switches the
    inventory lists are joined with the env files: without an inventory nothing says they are one
    cluster, and the rule stays silent rather than guess.

    Why: RoCE needs a lossless class. In a lossy one, packets drop under congestion, RDMA
    retransmits go-back-N and NCCL bandwidth collapses or jobs hang on error 12 timeouts; PFC never
    fires. SONiC's stock AZURE map sends DSCP 26 to TC 1, a lossy class, so NVIDIA's default 106 on a
    stock SONiC fabric is lossy.

    Bad:  `NCCL_IB_TC=106` with leaf01 `DSCP_TO_TC_MAP|AZURE` `"26": "1"` and PFC on 3,4
    Good: `NCCL_IB_TC=14` (DSCP 3 → TC 3, PFC on) — or change the switch map

    Fix: the value whose DSCP every switch maps to a PFC class (the inventory's DSCP when declared),
    with the ECN bits ECT(0) (`10`: 106 for DSCP 26, the value `netlint.recommended` states once for
    the fixes and the `nvidia-roce` pack; ECT(1) is the L4S codepoint, CE "congestion experienced",
    see NIC209); for an unset variable a new line (none when the NICs force the class).
    Unsafe: it moves the fabric's RDMA traffic to another class.

    Source: NVIDIA/nccl@5067397c (2.30.7) `src/transport/net_ib/connect.cc` L20-21 (`NCCL_IB_TC`,
    `NCCL_IB_FIFO_TC`), L412-419 (on RoCE the value goes unchanged into `ah_attr.grh.traffic_class`,
    the IP ToS byte), L634-635 (`NCCL_IB_TC_DEFAULT 0`), `src/transport/net_ib/gin.cc` L47
    (`NCCL_GIN_IB_TC`); RFC 2474 and RFC 3168 (DSCP = the upper six bits of that byte, ECN the lower
    two); sonic-net/sonic-buildimage@086b03bd `files/build_templates/qos_config.j2` L269-335 (AZURE:
    DSCP 26 → TC 1) and L470-474 (PFC on 3,4); opencomputeproject/SAI `inc/saiport.h`
    `SAI_PORT_ATTR_QOS_DEFAULT_TC` (default 0: the TC of a DSCP no map names); openucx/ucx#10325
    (one side sent DSCP 0); NVIDIA/nccl#378; NVIDIA/nccl@5067397c `src/plugin/net.cc` L293-304 (an
    external net plugin is tried before the internal IB and Socket transports), L321-351 (`NCCL_NET`
    picks one by name); Mellanox mlnx-ofa_kernel as packaged in DOCA-OFED 25.10
    (knneth/mlnx-ofa_kernel@28502354) `drivers/infiniband/hw/mlx5/main_ext.c` L429-445 (a global
    `tc/<port>/traffic_class` replaces the QP's traffic class) and `qp.c` L4923-4926; Linux
    `Documentation/ABI/testing/configfs-rdma_cm` (`default_roce_tos` applies to RDMA-CM QPs only).
    """

    code = "XC601"
    name = "ib-tc-lossy-class"
    summary = "NCCL_IB_TC marks a DSCP the switch maps to a lossy class"
    severity = Severity.ERROR
    tags = ("nccl", "switch", "cross-file")

    def check(self, ws) -> Iterator[Finding]:
        if _transport(ws) != "roce":
            return   # InfiniBand carries no DSCP, Ethernet no RDMA; EFA traffic never reads NCCL_IB_TC
        intent = _intent(ws)
        sws = _switches(ws)
        if intent is None and not sws:
            return
        nic = _nic_tos(ws)
        forced = bool(nic) and all(t is not None for t in nic) or _nic_files_force(ws)
        for env, var in scope.nccl_assignments(ws):
            if forced:
                break   # every NIC replaces the class NCCL asks for: NCCL's value never reaches the wire
            if var.key not in TC_VARS or var.known is None or var.conditional:
                continue
            tc = int_value(var.known)
            if tc is None or tc < 0 or tc > 255:
                continue
            if _disabled({k: env.get(k) for k in ("NCCL_IB_DISABLE", "NCCL_NET")}):
                continue
            yield from self._judge(ws, f"{var.key}={var.known}", tc, intent, sws, var=var)
        if _nic_sets_tos(ws):
            return
        for anchor, group in scope.launch_groups(ws):
            if scope.incomplete(group) or not scope.configures_ib(group):
                continue
            eff = scope.effective(group)
            if _disabled(eff) or _other_net(eff):
                continue
            # set in some layer (even conditionally, or to something unknown), or in a conf file
            # netlint cannot see: not "unset"
            if any(v.key in ("NCCL_IB_TC", "NCCL_CONF_FILE") for e in group for v in e.variables):
                continue
            yield from self._unset(ws, anchor, nic, intent, sws)

    def _unset(self, ws, anchor, nic, intent, sws) -> Iterator[Finding]:
        """NCCL_IB_TC unset: RoCE traffic carries DSCP 0, or the ToS the NICs force where the inventory
        declares one. With node groups that differ, a finding only when every one of them is wrong."""
        severity = Severity.ERROR if intent is not None else Severity.WARNING
        tos_values = sorted({t.value for t in nic if t is not None})
        spans = {t.value: t.span for t in nic if t is not None}
        cases = ([None] if not nic or any(t is None for t in nic) else []) + tos_values
        found = []
        for tos in cases:
            if tos is None:
                label = "NCCL_IB_TC is not set, so RoCE traffic"
            else:
                label = (f"NCCL_IB_TC is not set and the NICs force ToS {tos} (inventory roce_tos), "
                         f"so RoCE traffic")
            hits = list(self._judge(ws, label, tos, intent, sws, anchor=anchor, severity=severity,
                                    nic_span=spans.get(tos), fixable=tos is None))
            if not hits:
                return
            found.append(hits)
        if found:
            yield from found[0]

    def _judge(self, ws, label, tc, intent, sws, var=None, anchor=None, severity=None, nic_span=None,
               fixable=True) -> Iterator[Finding]:
        dscp = (tc or 0) >> 2
        where = var.span if var is not None else anchor.span
        key = var.key if var is not None else "NCCL_IB_TC:unset"
        lossy, no_ecn = [], []
        for sw in sws:
            rows = _landing(sw, dscp)
            bad = [(sw, *r) for r in rows if not sw.pfc_enabled_on(r[0])]
            weak = [(sw, *r) for r in rows if sw.pfc_enabled_on(r[0]) and sw.ecn_on_tc(r[0]) is False]
            if bad:
                lossy.append(bad[0])
            elif weak:
                no_ecn.append(weak[0])
        marks = f"{label} marks DSCP {dscp}" if var is not None else f"{label} is sent with DSCP {dscp}"
        related: list[Related] = [Related(nic_span, f"roce_tos: {tc}")] if nic_span is not None else []
        if intent is not None:
            want = intent.value
            if dscp == want:
                return
            msg = f"{marks}, but the inventory's RoCE class is DSCP {want}"
            if lossy:
                sw, t, span, ports, defaulted = lossy[0]
                how = f"does not map DSCP {dscp} (default TC 0)" if defaulted else f"maps DSCP {dscp} to TC {t}"
                msg += f"; {sw.name} {how}, a lossy class (PFC on {_pfc(sw)})"
            related.append(Related(intent.span, f"fabric.roce.dscp: {want}"))
            related += [Related(span, f"{sw.name}: DSCP {dscp} -> TC {t}" + (" (default TC)" if d else ""))
                        for sw, t, span, _, d in lossy[:5]]
            target = want
        elif lossy:
            sw, t, span, ports, defaulted = lossy[0]
            how = "does not map (default TC 0)" if defaulted else f"maps to TC {t}"
            msg = f"{marks}, which {sw.name} {how}, a lossy class (PFC on {_pfc(sw)})"
            if len(lossy) > 1:
                msg += f"; {len({s.name for s, *_ in lossy}) - 1} more switch(es) likewise"
            related += [Related(span, f"{s.name}: DSCP {dscp} -> TC {tt}" + (" (default TC)" if d else ""))
                        for s, tt, span, _, d in lossy[:5]]
            good = _lossless_dscps(sws)
            target = good[0] if good else None
        elif no_ecn:
            sw, t, span, ports, defaulted = no_ecn[0]
            yield self.finding(
                f"{marks}, which {sw.name} maps to TC {t}, lossless, but ECN does not mark that queue: "
                f"DCQCN gets no congestion signal", where, key=key, severity=Severity.WARNING,
                related=related + [Related(span, f"{sw.name}: DSCP {dscp} -> TC {t}")])
            return
        else:
            return
        fix = None
        if target is not None and not fixable:
            msg += (f"; the NICs' class must change (DSCP {target}: ToS {tos(target)}), "
                    f"NCCL_IB_TC cannot override it")
        elif target is not None:
            value = str(tos(target))  # ECN bits ECT(0), as the packs and NIC209 expect
            name = var.key if var is not None else "NCCL_IB_TC"
            desc = f"use DSCP {target}: {name}={value}"
            if var is not None:
                fix = value_fix(var, value, ws, desc, safe=False)
            else:
                fix = add_line(anchor, "NCCL_IB_TC", value, ws, desc, safe=False)
            msg += f"; {name}={value} marks DSCP {target}"
        yield self.finding(msg, where, key=key, fix=fix, related=related, severity=severity)
