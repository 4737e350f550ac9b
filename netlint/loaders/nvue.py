"""Cumulus Linux NVUE ``startup.yaml`` (``- set: {qos: …, interface: …}``) → :class:`SwitchQos`.

**The layout is derived, not confirmed**: no real public ``startup.yaml`` with QoS was found
when this was written. It follows the ``nv set qos …`` paths of Cumulus Linux 5.14 and the
general NVUE layout (``- set:`` → nested mappings, collections keyed by id, bare ids as ``{}``)::

    - set:
        qos:
          roce: {enable: on, mode: lossless}
          pfc: {default-global: {switch-priority: {'3': {}}, cable-length: 100, tx: enable, rx: enable}}
          pfc-watchdog: {polling-interval: 100, robustness: 3}
          congestion-control:
            default-global:
              traffic-class: {'3': {ecn: enable, red: disable, min-threshold: 150000, max-threshold: 1500000, probability: 100}}
          mapping: {default-global: {trust: l3, dscp: {'26': {switch-priority: 3}}}}
          egress-queue-mapping: {default-global: {switch-priority: {'3': {traffic-class: 3}}}}
          egress-scheduler: {default-global: {traffic-class: {'6': {mode: strict}, '3': {mode: dwrr, bw-percent: 50}}}}
        interface:
          swp1: {link: {mtu: 9216, speed: 400G}, qos: {pfc-watchdog: {state: enable}, pfc: {profile: default-global}}}

Normalization: NVUE's *switch priority* is what netlint calls the TC (DSCP→SP is ``dscp_to_tc``),
NVUE's *traffic class* is the egress queue (SP→TC is ``tc_to_queue``), PFC is enabled per switch
priority. Platform defaults are filled in where Cumulus documents them (CL514): DSCP→SP = dscp // 8;
with ``qos roce`` (lossless) DSCP 26→SP3, 48→SP6, PFC on SP3, ECN on queues 0 and 3
(150000/1500000 B, 100 %), queue 6 strict, 3 and 0 DWRR 50 %. Defaults carry the span of the
statement that implies them (``roce:``/``qos:``). Cumulus computes PG headroom itself from
``cable-length``, so no PG bindings are produced (headroom rules stay silent).
"""

from __future__ import annotations

from typing import Any, Iterator

from netlint.findings import Finding
from netlint.loaders.base import Loader, parsed_yaml
from netlint.located import MapNode, Scalar, SeqNode, Span
from netlint.models.switch import (Port, QosMap, QueueCfg, Scheduler, SwitchQos, Watchdog, WredColor,
                                   WredProfile)
from netlint.qos.units import as_bool, as_int, parse_speed_mbps
from netlint.source import SourceFile

DEFAULT = "default-global"
ALL_PORTS = "(all ports)"


class NvueLoader(Loader):
    name = "nvue-startup"
    kind = "switches"
    suffixes = (".yaml", ".yml")

    def claims(self, src: SourceFile) -> bool:
        text = src.text
        if "set:" not in text or "qos:" not in text:
            return False
        docs, _ = parsed_yaml(src)
        root = docs[0] if docs else None
        return isinstance(root, SeqNode) and any(isinstance(i, MapNode) and "set" in i for i in root)

    def load(self, src: SourceFile) -> Iterator[Any]:
        docs, problems = parsed_yaml(src)
        yield from problems
        if not docs or not isinstance(docs[0], SeqNode):
            return
        b = _Builder(src, docs[0])
        yield from b.build()


def _truthy(node: Any) -> bool | None:
    if isinstance(node, Scalar):
        return as_bool(node.value)
    return None


class _Builder:
    def __init__(self, src: SourceFile, root: SeqNode):
        self.src, self.root = src, root
        self.findings: list[Finding] = []
        self.qos: MapNode | None = None
        self.qos_path: tuple = ()
        self.ifaces: MapNode | None = None
        self.if_path: tuple = ()
        self.system: MapNode | None = None
        for i, item in enumerate(root):
            if not isinstance(item, MapNode) or not isinstance(item.get("set"), MapNode):
                continue
            st = item["set"]
            if isinstance(st.get("qos"), MapNode) and self.qos is None:
                self.qos, self.qos_path = st["qos"], (i, "set", "qos")
            if isinstance(st.get("interface"), MapNode) and self.ifaces is None:
                self.ifaces, self.if_path = st["interface"], (i, "set", "interface")
            if isinstance(st.get("system"), MapNode) and self.system is None:
                self.system = st["system"]

    def bad(self, node: Any, message: str, key: str) -> None:
        self.findings.append(Finding("NL005", message, getattr(node, "span", self.root.span), key=key))

    def sect(self, node: Any, key: str) -> MapNode:
        v = node.get(key) if isinstance(node, MapNode) else None
        return v if isinstance(v, MapNode) else _EMPTY

    def build(self) -> Iterator[Any]:
        qos = self.qos or _EMPTY
        hostname = self.system.get("hostname") if isinstance(self.system, MapNode) else None
        stem = self.src.path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        name = hostname.value if isinstance(hostname, Scalar) and hostname.value else (
            self.src.path.rsplit("/", 2)[-2] if stem == "startup" and "/" in self.src.path else stem)
        sw = SwitchQos(name=str(name), file=self.src.path, format="nvue", span=self.root.span,
                       hostname=hostname if isinstance(hostname, Scalar) else None, complete=True,
                       tables=frozenset(str(k) for k in qos), container_span=qos.span if self.qos else self.root.span,
                       path=self.qos_path)
        qspan = self.qos.span if self.qos is not None else self.root.span
        qkey = qspan
        roce = self.sect(qos, "roce")
        roce_on = False
        roce_span = qos.key_span("roce") if "roce" in qos else qkey
        if "roce" in qos:
            en = roce.get("enable")
            roce_on = _truthy(en) is not False if en is not None else True
            mode = roce.get("mode")
            lossless = not (isinstance(mode, Scalar) and str(mode.value).startswith("lossy"))
            roce_on = roce_on and lossless
        # -- DSCP -> switch priority maps (per mapping profile) -----------------------------------
        mappings = self.sect(qos, "mapping")
        profiles = set(mappings) | {DEFAULT}
        for prof in profiles:
            node = self.sect(mappings, prof)
            span = node.span if prof in mappings else qkey
            qm = QosMap(name=str(prof), kind="dscp_to_tc", span=span,
                        key_span=mappings.key_span(prof) if prof in mappings else qkey,
                        path=self.qos_path + ("mapping", prof, "dscp"))
            for d in range(64):  # Cumulus default: DSCP 24-31 -> SP3, 48-55 -> SP6 (dscp // 8)
                qm.entries[d] = Scalar(d // 8, qkey)
            if roce_on:
                qm.entries[26] = Scalar(3, roce_span)
                qm.entries[48] = Scalar(6, roce_span)
            dscp = self.sect(node, "dscp")
            for k, v in dscp.items():
                ids = [as_int(x) for x in str(k).split(",")]
                sp = as_int(v.get("switch-priority").value) if isinstance(v, MapNode) and isinstance(
                    v.get("switch-priority"), Scalar) else None
                if sp is None or not 0 <= sp <= 7 or any(i is None or not 0 <= i <= 63 for i in ids):
                    self.bad(v if isinstance(v, MapNode) else dscp, f"qos mapping {prof} dscp {k}: needs DSCP 0..63 "
                             f"and switch-priority 0..7", f"qos.mapping.{prof}.dscp.{k}")
                    continue
                sps = v["switch-priority"]
                for i in ids:
                    qm.entries[i] = Scalar(sp, sps.span, sps.raw)
                    qm.key_spans[i] = dscp.key_span(k)
            sw.maps.setdefault("dscp_to_tc", {})[qm.name] = qm
            trust = node.get("trust")
            if isinstance(trust, Scalar) and prof == DEFAULT:
                t = {"l2": "pcp", "l3": "dscp", "both": "both", "port": "port"}.get(str(trust.value))
                if t is None:
                    self.bad(trust, f"qos mapping {prof} trust: {trust.value!r} is not one of l2, l3, both, port",
                             f"qos.mapping.{prof}.trust")
                else:
                    sw.trust = Scalar(t, trust.span, trust.raw)
        if sw.trust is None and roce_on:
            sw.trust = Scalar("both", roce_span)
        sw.global_maps["dscp_to_tc"] = Scalar(DEFAULT, qkey)
        # -- SP -> egress queue ("traffic class") ---------------------------------------------------
        eqm = self.sect(self.sect(qos, "egress-queue-mapping"), DEFAULT)
        tcq = QosMap(name=DEFAULT, kind="tc_to_queue", span=eqm.span if eqm else qkey, key_span=qkey,
                     path=self.qos_path + ("egress-queue-mapping", DEFAULT, "switch-priority"))
        for sp in range(8):
            tcq.entries[sp] = Scalar(sp if not roce_on or sp in (3, 6) else 0, roce_span if roce_on else qkey)
        for k, v in self.sect(eqm, "switch-priority").items():
            sp, tc = as_int(k), (as_int(v["traffic-class"].value) if isinstance(v, MapNode) and isinstance(
                v.get("traffic-class"), Scalar) else None)
            if sp is None or tc is None or not 0 <= sp <= 7 or not 0 <= tc <= 7:
                self.bad(v, f"qos egress-queue-mapping switch-priority {k}: needs traffic-class 0..7",
                         f"qos.egress-queue-mapping.{k}")
                continue
            tcq.entries[sp] = Scalar(tc, v["traffic-class"].span, v["traffic-class"].raw)
        sw.maps["tc_to_queue"] = {DEFAULT: tcq}
        sw.global_maps["tc_to_queue"] = Scalar(DEFAULT, qkey)
        # -- PFC profiles -------------------------------------------------------------------------
        pfc_profiles: dict[str, tuple[list[Scalar], Scalar | None, tuple, Span]] = {}
        pfcs = self.sect(qos, "pfc")
        if roce_on:
            pfc_profiles[DEFAULT] = ([Scalar(3, roce_span)], None, self.qos_path + ("pfc", DEFAULT, "switch-priority"),
                                     roce_span)
        for prof, node in pfcs.items():
            if not isinstance(node, MapNode):
                continue
            spn = node.get("switch-priority")
            prios: list[Scalar] = []
            if isinstance(spn, MapNode):
                for k in spn:
                    n = as_int(k)
                    if n is None or not 0 <= n <= 7:
                        self.bad(spn.keys_at.get(k) or spn, f"qos pfc {prof} switch-priority {k!r}: must be 0..7",
                                 f"qos.pfc.{prof}.switch-priority")
                        continue
                    prios.append(Scalar(n, spn.key_span(k), str(k)))
            elif isinstance(spn, Scalar):
                for part in str(spn.value).split(","):
                    n = as_int(part)
                    if n is not None and 0 <= n <= 7:
                        prios.append(Scalar(n, spn.span, part))
            cable = node.get("cable-length")
            cl = None
            if isinstance(cable, Scalar):
                c = as_int(cable.value)
                if c is None or c < 0:
                    self.bad(cable, f"qos pfc {prof} cable-length: {cable.value!r} must be metres", f"qos.pfc.{prof}")
                else:
                    cl = Scalar(c, cable.span, cable.raw)
            if spn is None and prof in pfc_profiles:
                prios = pfc_profiles[prof][0]
            pfc_profiles[str(prof)] = (prios, cl, self.qos_path + ("pfc", prof, "switch-priority"), node.span)
        # -- congestion control (ECN/WRED per queue) -------------------------------------------------
        cc_profiles: dict[str, dict[int, str]] = {}
        if roce_on:
            cc_profiles[DEFAULT] = {}
            for q in (0, 3):
                wp = WredProfile(name=f"{DEFAULT}:tc{q}", span=roce_span, ecn=Scalar("ecn_all", roce_span),
                                 green=WredColor(min_threshold=Scalar(150000, roce_span),
                                                 max_threshold=Scalar(1500000, roce_span),
                                                 drop_probability=Scalar(100, roce_span)))
                sw.wred_profiles[wp.name] = wp
                cc_profiles[DEFAULT][q] = wp.name
        for prof, node in self.sect(qos, "congestion-control").items():
            tcs = self.sect(node, "traffic-class")
            table = cc_profiles.setdefault(str(prof), {})
            for k, v in tcs.items():
                if not isinstance(v, MapNode):
                    continue
                for part in str(k).split(","):
                    q = as_int(part)
                    if q is None or not 0 <= q <= 7:
                        self.bad(tcs.keys_at.get(k) or tcs, f"qos congestion-control {prof} traffic-class {k!r}: "
                                 f"must be 0..7", f"qos.congestion-control.{prof}")
                        continue
                    wp = self._wred(f"{prof}:tc{q}", v, tcs.key_span(k),
                                    self.qos_path + ("congestion-control", prof, "traffic-class", k))
                    sw.wred_profiles[wp.name] = wp
                    table[q] = wp.name
        # -- egress scheduler -----------------------------------------------------------------------
        sched_profiles: dict[str, dict[int, str]] = {}
        if roce_on:
            sched_profiles[DEFAULT] = {}
            for q, mode, w in ((6, "strict", None), (3, "dwrr", 50), (0, "dwrr", 50)):
                s = Scheduler(name=f"{DEFAULT}:tc{q}", span=roce_span, type=Scalar(mode, roce_span),
                              weight=Scalar(w, roce_span) if w else None)
                sw.schedulers[s.name] = s
                sched_profiles[DEFAULT][q] = s.name
        for prof, node in self.sect(qos, "egress-scheduler").items():
            tcs = self.sect(node, "traffic-class")
            table = sched_profiles.setdefault(str(prof), {})
            for k, v in tcs.items():
                if not isinstance(v, MapNode):
                    continue
                mode = v.get("mode")
                mval = str(mode.value).lower() if isinstance(mode, Scalar) else None
                if mval not in (None, "strict", "dwrr"):
                    self.bad(mode, f"qos egress-scheduler {prof} mode: {mode.value!r} is not one of dwrr, strict",
                             f"qos.egress-scheduler.{prof}")
                    continue
                bw = v.get("bw-percent")
                for part in str(k).split(","):
                    q = as_int(part)
                    if q is None or not 0 <= q <= 7:
                        continue
                    s = Scheduler(name=f"{prof}:tc{q}", span=v.span, key_span=tcs.key_span(k),
                                  path=self.qos_path + ("egress-scheduler", prof, "traffic-class", k),
                                  type=Scalar(mval, mode.span, mode.raw) if mval else None,
                                  weight=Scalar(as_int(bw.value), bw.span, bw.raw)
                                  if isinstance(bw, Scalar) and as_int(bw.value) is not None else None)
                    sw.schedulers[s.name] = s
                    table[q] = s.name
        # -- PFC watchdog polling ------------------------------------------------------------------
        wdg = self.sect(qos, "pfc-watchdog")
        pi = wdg.get("polling-interval")
        if isinstance(pi, Scalar) and as_int(pi.value) is not None:
            sw.watchdog_poll_ms = Scalar(as_int(pi.value), pi.span, pi.raw)
            sw.watchdog_global_span = wdg.span
        # -- interfaces ------------------------------------------------------------------------------
        ifaces = [(str(k), v) for k, v in (self.ifaces or _EMPTY).items()
                  if isinstance(v, MapNode) and _is_port(str(k))]
        if not ifaces:
            ifaces = [(ALL_PORTS, None)]
        for ifname, node in ifaces:
            ipath = self.if_path + (ifname,) if node is not None else self.qos_path
            span = self.ifaces.key_span(ifname) if node is not None else qkey
            port = Port(name=ifname, span=span, path=ipath)
            link = self.sect(node, "link")
            mtu = link.get("mtu")
            if isinstance(mtu, Scalar):
                m = as_int(mtu.value)
                if m is None or not 552 <= m <= 9216:
                    self.bad(mtu, f"interface {ifname} link mtu: {mtu.value!r} must be 552..9216",
                             f"interface.{ifname}.link.mtu")
                else:
                    port.mtu = Scalar(m, mtu.span, mtu.raw)
            spd = link.get("speed")
            if isinstance(spd, Scalar):
                mbps = parse_speed_mbps(spd.value)
                if mbps is not None:
                    port.speed = Scalar(mbps, spd.span, spd.raw)
            iq = self.sect(node, "qos")
            port.qos_span, port.qos_path = (iq.span if iq else span), ipath + ("qos",)

            def bound(section: str) -> str:
                ref = self.sect(iq, section).get("profile")
                return str(ref.value) if isinstance(ref, Scalar) else DEFAULT

            mp = bound("mapping")
            if mp != DEFAULT:
                ref = self.sect(iq, "mapping")["profile"]
                port.maps = {"dscp_to_tc": Scalar(mp, ref.span, ref.raw)}
                if mp not in mappings:
                    self.findings.append(Finding("NL011", f"interface {ifname} uses qos mapping profile '{mp}', "
                                                 f"which is not defined under qos mapping", ref.span,
                                                 key=f"interface.{ifname}.qos.mapping"))
            pp = bound("pfc")
            if pp in pfc_profiles:
                prios, cl, ppath, _ = pfc_profiles[pp]
                port.pfc_enable = list(prios)
                port.pfc_path = ppath
                port.pfc_enable_token = Scalar([p.value for p in prios], prios[0].span) if prios else None
                port.cable_length = cl
            elif pp != DEFAULT:
                ref = self.sect(iq, "pfc")["profile"]
                self.findings.append(Finding("NL011", f"interface {ifname} uses qos pfc profile '{pp}', which is "
                                             f"not defined under qos pfc", ref.span, key=f"interface.{ifname}.qos.pfc"))
            else:
                port.pfc_path = self.qos_path + ("pfc", DEFAULT, "switch-priority")
                if self.qos is not None:
                    port.pfc_enable = []  # NVUE: no PFC profile means no PFC
            wd = self.sect(iq, "pfc-watchdog")
            if wd or node is not None:
                st = wd.get("state")
                en = _truthy(st) if isinstance(st, Scalar) else (True if "pfc-watchdog" in iq else None)
                port.watchdog = Watchdog(span=wd.span if wd else port.qos_span,
                                         path=port.qos_path + ("pfc-watchdog",),
                                         enabled=Scalar(en, st.span if isinstance(st, Scalar) else
                                                        (iq.key_span("pfc-watchdog") if "pfc-watchdog" in iq else span))
                                         if en is not None else None)
            cc = cc_profiles.get(bound("congestion-control"), {})
            sc = sched_profiles.get(bound("egress-scheduler"), {})
            for q in sorted(set(cc) | set(sc)):
                wname, sname = cc.get(q), sc.get(q)
                wp = sw.wred_profiles.get(wname) if wname else None
                sch = sw.schedulers.get(sname) if sname else None
                qspan = (wp.span if wp else sch.span)
                port.queues[q] = QueueCfg(index=q, span=qspan,
                                          wred_profile=Scalar(wname, wp.span) if wp else None,
                                          scheduler=Scalar(sname, sch.span) if sch else None)
            sw.ports[ifname] = port
        yield from self.findings
        yield sw

    def _wred(self, name: str, v: MapNode, key_span: Span, path: tuple) -> WredProfile:
        ecn = v.get("ecn")
        red = v.get("red")
        ecn_on = _truthy(ecn) if isinstance(ecn, Scalar) else None

        def num(field: str) -> Scalar | None:
            s = v.get(field)
            if not isinstance(s, Scalar):
                return None
            n = as_int(s.value)
            if n is None:
                self.bad(s, f"qos congestion-control {name} {field}: {s.value!r} must be a number", f"qos.cc.{name}.{field}")
                return None
            return Scalar(n, s.span, s.raw)

        return WredProfile(
            name=name, span=v.span, key_span=key_span, path=path,
            ecn=Scalar("ecn_all" if ecn_on else "ecn_none", ecn.span if isinstance(ecn, Scalar) else key_span)
            if ecn_on is not None else Scalar("ecn_all", key_span),
            green=WredColor(min_threshold=num("min-threshold"), max_threshold=num("max-threshold"),
                            drop_probability=num("probability"),
                            enabled=Scalar(_truthy(red), red.span) if isinstance(red, Scalar) and _truthy(red) is not None
                            else None))


def _is_port(name: str) -> bool:
    return name.startswith(("swp", "Ethernet", "eth")) and name not in ("eth0",) or name[:3] == "sw"


_EMPTY = MapNode(Span("", 0, 0, 0, 0))
