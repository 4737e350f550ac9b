from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.nccl import scope
from netlint.nccl.fixes import add_line, value_fix
from netlint.nccl.values import int_value
from netlint.rules.base import Rule

TC_VARS = ("NCCL_IB_TC", "NCCL_IB_FIFO_TC", "NCCL_GIN_IB_TC")
PREFERRED_DSCP = 26   # NVIDIA's RoCE class (Cumulus RoCE default); NCCL_IB_TC=106 = 26<<2 | ECT(0)


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
    """[(tc, span, ports)] where ``dscp`` lands on ``sw``; a DSCP missing from a bound SONiC map goes to
    the default TC 0 (SAI QOS_DEFAULT_TC); elsewhere a missing entry is unknown and skipped."""
    out = []
    for tc, span, ports in sw.dscp_to_tc(dscp):
        if span is None:
            continue
        if tc is None:
            if not sw.format.startswith("sonic"):
                continue
            out.append((0, span, ports, True))
        else:
            out.append((tc, span, ports, False))
    return out


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


def _nic_sets_tos(ws) -> bool:
    """A NIC config that sets a default RoCE traffic class/ToS overrides an unset NCCL_IB_TC."""
    for nic in ws.nics:
        for attr in ("traffic_class", "tos", "roce_tos", "default_tos", "cma_roce_tos", "tclass"):
            if getattr(nic, attr, None) is not None:
                return True
    return False


def _disabled(env_vars: dict) -> bool:
    """IB turned off or sockets forced: the traffic class is moot."""
    ib = env_vars.get("NCCL_IB_DISABLE")
    net = env_vars.get("NCCL_NET")
    return bool((ib is not None and int_value(ib.known or "") not in (None, 0))
                or (net is not None and (net.known or "").strip().lower() == "socket"))


class IbTcLossyClass(Rule):
    """`NCCL_IB_TC` sends RoCE traffic into a switch class without PFC (or unset: DSCP 0).

    What: NCCL writes `NCCL_IB_TC` unchanged into the RoCE packets' IP ToS byte, so the DSCP is
    `NCCL_IB_TC >> 2` (106 → DSCP 26; 0 when unset). netlint follows that DSCP through every switch's
    DSCP→TC map and checks that the TC has PFC (lossless) and, as a warning, that ECN marks its queue.
    When the inventory declares the RoCE class (`fabric.roce.dscp`) that intent wins: NCCL's DSCP must
    equal it (whether the switches treat that DSCP right is QOS101's business). `NCCL_IB_TC` unset on a
    RoCE fabric (inventory `transport: roce`) is the same fault with DSCP 0, checked per launch (a job,
    or an env nobody sources) that configures the IB transport (sets some `NCCL_IB_*`), unless an
    unresolved `source` or a NIC-level ToS setting could set it.
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
    keeping the two ECN bits; for an unset variable a new line. Unsafe: it moves the fabric's RDMA
    traffic to another class.

    Source: NVIDIA/nccl@5067397c (2.30.7) `src/transport/net_ib/connect.cc` L20-21 (`NCCL_IB_TC`,
    `NCCL_IB_FIFO_TC`), L412-419 (on RoCE the value goes unchanged into `ah_attr.grh.traffic_class`,
    the IP ToS byte), L634-635 (`NCCL_IB_TC_DEFAULT 0`), `src/transport/net_ib/gin.cc` L47
    (`NCCL_GIN_IB_TC`); RFC 2474 and RFC 3168 (DSCP = the upper six bits of that byte, ECN the lower
    two); sonic-net/sonic-buildimage@086b03bd `files/build_templates/qos_config.j2` L269-335 (AZURE:
    DSCP 26 → TC 1) and L470-474 (PFC on 3,4); opencomputeproject/SAI `inc/saiport.h`
    `SAI_PORT_ATTR_QOS_DEFAULT_TC` (default 0: the TC of a DSCP no map names); openucx/ucx#10325
    (one side sent DSCP 0); NVIDIA/nccl#378.
    """

    code = "XC601"
    name = "ib-tc-lossy-class"
    summary = "NCCL_IB_TC marks a DSCP the switch maps to a lossy class"
    severity = Severity.ERROR
    tags = ("nccl", "switch", "cross-file")

    def check(self, ws) -> Iterator[Finding]:
        fabric = _transport(ws)
        if fabric in ("infiniband", "ethernet"):
            return
        intent = _intent(ws)
        sws = _switches(ws)
        if intent is None and not sws:
            return
        for env, var in scope.nccl_assignments(ws):
            if var.key not in TC_VARS or var.known is None or var.conditional:
                continue
            tc = int_value(var.known)
            if tc is None or tc < 0 or tc > 255:
                continue
            if _disabled({k: env.get(k) for k in ("NCCL_IB_DISABLE", "NCCL_NET")}):
                continue
            yield from self._judge(ws, f"{var.key}={var.known}", tc, intent, sws, var=var)
        if fabric != "roce" or _nic_sets_tos(ws):
            return
        for anchor, group in scope.launch_groups(ws):
            if scope.incomplete(group) or not scope.configures_ib(group):
                continue
            eff = scope.effective(group)
            if "NCCL_IB_TC" in eff or _disabled(eff):
                continue
            if any(v.key == "NCCL_IB_TC" for e in group for v in e.variables):
                continue   # set somewhere (conditionally, or to something unknown): not "unset"
            yield from self._judge(ws, "NCCL_IB_TC is not set, so RoCE traffic", None, intent, sws,
                                   anchor=anchor)

    def _judge(self, ws, label, tc, intent, sws, var=None, anchor=None) -> Iterator[Finding]:
        dscp = (tc or 0) >> 2
        ecn = (tc & 3) if tc is not None else 2
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
        marks = f"{label} marks DSCP {dscp}" if tc is not None else f"{label} is sent with DSCP 0"
        related: list[Related] = []
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
            related = [Related(span, f"{s.name}: DSCP {dscp} -> TC {tt}" + (" (default TC)" if d else ""))
                       for s, tt, span, _, d in lossy[:5]]
            good = _lossless_dscps(sws)
            target = good[0] if good else None
        elif no_ecn:
            sw, t, span, ports, defaulted = no_ecn[0]
            yield self.finding(
                f"{marks}, which {sw.name} maps to TC {t}, lossless, but ECN does not mark that queue: "
                f"DCQCN gets no congestion signal", where, key=key, severity=Severity.WARNING,
                related=[Related(span, f"{sw.name}: DSCP {dscp} -> TC {t}")])
            return
        else:
            return
        fix = None
        if target is not None:
            value = str((target << 2) | ecn)
            name = var.key if var is not None else "NCCL_IB_TC"
            desc = f"use DSCP {target}: {name}={value}"
            if var is not None:
                fix = value_fix(var, value, ws, desc, safe=False)
            else:
                fix = add_line(anchor, "NCCL_IB_TC", value, ws, desc, safe=False)
            msg += f"; {name}={value} marks DSCP {target}"
        yield self.finding(msg, where, key=key, fix=fix, related=related)
