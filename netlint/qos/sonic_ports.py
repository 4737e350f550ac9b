"""SONiC port tables: ports, per-port QoS (maps, scheduler, PFC), queues and the PFC watchdog
(a mixin of :class:`netlint.qos.sonic_tables.SonicBuilder`)."""

from __future__ import annotations

from typing import Any

from netlint.located import MapNode, Scalar
from netlint.models.switch import QueueCfg, Watchdog
from netlint.qos.sonic_catalogue import KIND_TABLE, PORT_MAP_FIELDS, _at, _ranges, port_list
from netlint.qos.units import split_list


class PortTables:
    """Reads ``PORT``, ``PORT_QOS_MAP``, ``QUEUE`` and ``PFC_WD``."""

    def _ports(self) -> None:
        for name, e in self.entries("PORT"):
            where = f"PORT|{name}"
            p = self.port(name, self.table("PORT").key_span(name), self.path + ("PORT", name))
            p.span = self.table("PORT").key_span(name)
            p.speed = self.int_field(e, "speed", where, 1, 1_600_000)
            p.mtu = self.int_field(e, "mtu", where, 68, 9216)
            st = e.get("admin_status")
            p.admin_status = st if isinstance(st, Scalar) else None
            p.qos_path = self.path + ("PORT_QOS_MAP", name)

    def _port_qos(self) -> None:
        t = self.table("PORT_QOS_MAP")
        for name, e in self.entries("PORT_QOS_MAP"):
            where = f"PORT_QOS_MAP|{name}"
            refs: dict[str, Scalar] = {}
            for f in e:
                kind = PORT_MAP_FIELDS.get(f)
                if kind is None:
                    continue
                r = self.ref_field(e, f)
                if r is not None:
                    refs[kind] = r
                    known = self.sw.maps.get(kind, {})
                    if r.value not in known:
                        self.check_ref(r, KIND_TABLE[kind], known, f"{where}.{f}", "map")
            sched = self.ref_field(e, "scheduler")
            self.check_ref(sched, "SCHEDULER", self.sw.schedulers, f"{where}.scheduler", "scheduler")
            if name.lower() == "global":
                self.sw.global_maps.update(refs)
                continue
            pe, wd = e.get("pfc_enable"), e.get("pfcwd_sw_enable")
            pfc = self.prio_list(pe, where + ".pfc_enable") if isinstance(pe, Scalar) else None
            wd_prios = self.prio_list(wd, where + ".pfcwd_sw_enable") if isinstance(wd, Scalar) else None
            for pname in port_list(name):  # one entry may stand for several ports
                self.known_port(pname, _at(t, name), where)
                p = self.port(pname, t.key_span(name), self.path + ("PORT_QOS_MAP", name))
                p.qos_span, p.qos_path = e.span, self.path + ("PORT_QOS_MAP", name)
                p.maps = refs
                p.scheduler = sched
                p.pfc_path = p.qos_path + ("pfc_enable",)
                if pfc is not None:
                    p.pfc_enable, p.pfc_enable_token = pfc, pe
                if wd_prios is not None:
                    w = p.watchdog or Watchdog(path=self.path + ("PFC_WD", pname))
                    w.priorities, w.priorities_token = wd_prios, wd
                    p.watchdog = w

    def prio_list(self, token: Scalar, where: str) -> list[Scalar] | None:
        """``"3,4"`` → priorities; NL005 unless it matches ``([0-7](,[0-7])*)?``."""
        if isinstance(token.value, int) and not isinstance(token.value, bool):
            token = Scalar(str(token.value), token.span, token.raw, token.quoted)
        if not isinstance(token.value, str):
            self.bad(token, f"{where}: {token.value!r} must be a list like \"3,4\"", where)
            return None
        items, bad = split_list(token)
        if bad or any(not 0 <= s.value <= 7 for s in items) or (token.value.strip() and not items):
            self.bad(token, f"{where}: {token.value!r} does not match the pattern ([0-7](,[0-7])*)? "
                            f"(priorities 0..7, comma separated)", where)
            return None
        return items

    def _voq_local_check(self, pname: str, node: Any, where: str) -> None:
        host, asic, ifname = pname.split("|")
        lh, la = self.meta.get("hostname"), self.meta.get("asic_name")
        if isinstance(lh, Scalar) and isinstance(la, Scalar) and lh.value == host and la.value == asic:
            if ifname not in self.table("PORT"):
                self.bad(node, f"{where}: Local VOQ_QUEUE entry refers to port '{ifname}', which is not in "
                               f"the PORT table", where, code="NL011")

    def _queues(self) -> None:
        t = self.table("QUEUE")
        known = self._port_names
        scheds, wreds = self.sw.schedulers, self.sw.wred_profiles
        ports = self.sw.ports
        base = self.path + ("QUEUE",)
        for key, e in t.items():
            if not isinstance(e, MapNode):
                self.bad(e, f"QUEUE|{key} must be an object of fields", f"QUEUE.{key}")
                continue
            parts = str(key).split("|")
            if len(parts) == 2:
                pnames, idx = port_list(parts[0]), parts[1]
                for pname in pnames:
                    if known is not None and pname not in known:
                        self.known_port(pname, _at(t, key), f"QUEUE|{key}")
            else:
                sk = self.split_key("QUEUE", str(key), _at(t, key))
                if sk is None:
                    continue
                pname, idx, _ = sk
                pnames = [pname]
                self._voq_local_check(pname, _at(t, key), f"QUEUE|{key}")
            qs = _ranges(idx)
            if qs is None:
                self.bad(_at(t, key), f"QUEUE|{key}: queue index {idx!r} is not a number or range", f"QUEUE|{key}")
                continue
            sched = self.ref_field(e, "scheduler")
            wred = self.ref_field(e, "wred_profile")
            if sched is not None and sched.value not in scheds:
                self.check_ref(sched, "SCHEDULER", scheds, f"QUEUE|{key}.scheduler", "scheduler")
            if wred is not None and wred.value not in wreds:
                self.check_ref(wred, "WRED_PROFILE", wreds, f"QUEUE|{key}.wred_profile", "WRED profile")
            kspan = t.key_span(key)
            path = base + (key,)
            for pname in pnames:
                p = ports.get(pname) or self.port(pname, kspan, path)
                for q in qs:
                    qc = p.queues.get(q)
                    if qc is None:
                        p.queues[q] = QueueCfg(index=q, span=kspan, path=path, scheduler=sched, wred_profile=wred)
                    else:
                        qc.scheduler, qc.wred_profile = sched or qc.scheduler, wred or qc.wred_profile

    def _pfc_wd(self) -> None:
        t = self.table("PFC_WD")
        for name, e in self.entries("PFC_WD"):
            where = f"PFC_WD|{name}"
            self.enum_field(e, "pfc_stat_history", where, ("enable", "disable"))
            if name.upper() == "GLOBAL":
                # 100..1000 is checked by QOS106 (all formats)
                self.sw.watchdog_poll_ms = self.int_field(e, "POLL_INTERVAL", where, check_range=False)
                self.sw.watchdog_global_span = e.span
                self.enum_field(e, "BIG_RED_SWITCH", where, ("enable", "disable"))
                continue
            self.known_port(name, _at(t, name), where)
            p = self.port(name, t.key_span(name), self.path + ("PFC_WD", name))
            w = p.watchdog or Watchdog()
            w.span, w.path = e.span, self.path + ("PFC_WD", name)
            w.enabled = Scalar(True, t.key_span(name))
            w.action = self.enum_field(e, "action", where, ("drop", "forward", "alert"))
            w.detection_ms = self.int_field(e, "detection_time", where, check_range=False)
            w.detection_missing = "detection_time" not in e
            w.restoration_ms = self.int_field(e, "restoration_time", where, check_range=False)
            p.watchdog = w
