"""SONiC CONFIG_DB tables → :class:`~netlint.models.switch.SwitchQos` (used by :mod:`netlint.loaders.sonic`).

The table catalogue, and the builder that reads each table family with YANG's types and ranges
(``sonic-buildimage`` ``src/sonic-yang-models``, research/switch-qos.md §1a), reporting bad values
(NL005) and dangling references (NL011) as located findings."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterator

from netlint.findings import Finding, Severity
from netlint.located import MapNode, Scalar, Span
from netlint.models.switch import (BufferPool, BufferProfile, PgBinding, Port, QosMap, QueueCfg,
                                   Scheduler, SwitchQos, Watchdog, WredColor, WredProfile)
from netlint.qos.units import as_bool, as_int, expand_range, parse_cable_m, split_list, strip_ref


# CONFIG_DB map tables: table -> (kind, from range, to range, from name, to name)
MAP_TABLES: dict[str, tuple[str, int, int, str, str]] = {
    "DSCP_TO_TC_MAP": ("dscp_to_tc", 63, 15, "DSCP", "Traffic Class"),
    "DOT1P_TO_TC_MAP": ("dot1p_to_tc", 7, 15, "DOT1P", "Traffic Class"),
    "TC_TO_PRIORITY_GROUP_MAP": ("tc_to_pg", 15, 7, "Traffic Class", "Priority Group"),
    "TC_TO_QUEUE_MAP": ("tc_to_queue", 15, 9, "Traffic Class", "queue index"),
    "MAP_PFC_PRIORITY_TO_QUEUE": ("pfc_to_queue", 7, 7, "pfc priority", "queue index"),
    "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": ("pfc_to_pg", 7, 7, "pfc priority", "Priority Group"),
    "TC_TO_DSCP_MAP": ("tc_to_dscp", 15, 63, "Traffic Class", "DSCP"),
}
KIND_TABLE = {v[0]: k for k, v in MAP_TABLES.items()}
# PORT_QOS_MAP field -> map kind
PORT_MAP_FIELDS = {"dscp_to_tc_map": "dscp_to_tc", "dot1p_to_tc_map": "dot1p_to_tc",
                   "tc_to_pg_map": "tc_to_pg", "tc_to_queue_map": "tc_to_queue",
                   "pfc_to_queue_map": "pfc_to_queue", "pfc_to_pg_map": "pfc_to_pg",
                   "tc_to_dscp_map": "tc_to_dscp"}

QOS_TABLES = frozenset(MAP_TABLES) | {
    "PORT_QOS_MAP", "WRED_PROFILE", "SCHEDULER", "QUEUE", "BUFFER_POOL", "BUFFER_PROFILE",
    "BUFFER_PG", "BUFFER_QUEUE", "PFC_WD", "CABLE_LENGTH", "BUFFER_PORT_INGRESS_PROFILE_LIST",
    "BUFFER_PORT_EGRESS_PROFILE_LIST", "LOSSLESS_TRAFFIC_PATTERN", "DEFAULT_LOSSLESS_BUFFER_PARAMETER"}
SNIFF = tuple(f'"{t}"' for t in ("PORT_QOS_MAP", "DSCP_TO_TC_MAP", "BUFFER_PG", "WRED_PROFILE",
                                 "BUFFER_PROFILE", "BUFFER_POOL", "SCHEDULER", "QUEUE",
                                 "TC_TO_PRIORITY_GROUP_MAP", "PFC_WD", "CABLE_LENGTH"))

ECN = ("ecn_none", "ecn_green", "ecn_yellow", "ecn_red", "ecn_green_yellow", "ecn_green_red",
       "ecn_yellow_red", "ecn_all")
U64 = 2 ** 64 - 1
U32 = 2 ** 32 - 1


class SonicBuilder:
    """Builds one SwitchQos from a CONFIG_DB-shaped located tree, checking values as it goes."""

    def __init__(self, file: str, root: MapNode, fmt: str, *, complete: bool, stem: str,
                 path: tuple = ()):
        self.file, self.root, self.fmt, self.complete, self.stem, self.path = \
            file, root, fmt, complete, stem, path
        self.findings: list[Finding] = []
        self.sw: SwitchQos | None = None

    # -- findings ---------------------------------------------------------------------------------
    def bad(self, node: Any, message: str, key: str, code: str = "NL005",
            severity: Severity = Severity.ERROR) -> None:
        span = node.span if hasattr(node, "span") else self.root.span
        self.findings.append(Finding(code, message, span, severity, key=f"{self.stem}:{key}"))

    def table(self, name: str) -> MapNode:
        t = self.root.get(name)
        if t is None:
            return _EMPTY
        if not isinstance(t, MapNode):
            self.bad(t, f"{name} must be an object of entries", name)
            return _EMPTY
        return t

    def entries(self, name: str) -> Iterator[tuple[str, MapNode]]:
        for k, v in self.table(name).items():
            if isinstance(v, MapNode):
                yield str(k), v
            else:
                self.bad(v, f"{name}|{k} must be an object of fields", f"{name}.{k}")

    def int_field(self, entry: MapNode, field: str, where: str, lo: int = 0, hi: int = U64,
                  check_range: bool = True) -> Scalar | None:
        s = entry.get(field)
        if s is None:
            return None
        if not isinstance(s, Scalar):
            self.bad(s, f"{where}.{field} must be a number", f"{where}.{field}")
            return None
        n = as_int(s.value)
        if n is None:
            self.bad(s, f"{where}.{field}: {s.value!r} is not an integer", f"{where}.{field}")
            return None
        if check_range and not lo <= n <= hi:
            self.bad(s, f"{where}.{field}: {n} is out of range {lo}..{hi}", f"{where}.{field}")
            return None
        return Scalar(n, s.span, s.raw, s.quoted)

    def enum_field(self, entry: MapNode, field: str, where: str, allowed: tuple[str, ...],
                   lower: bool = False) -> Scalar | None:
        s = entry.get(field)
        if s is None:
            return None
        val = s.value if isinstance(s, Scalar) else None
        if isinstance(val, bool):
            val = "true" if val else "false"
        norm = val.lower() if (lower and isinstance(val, str)) else val
        if norm not in allowed:
            self.bad(s, f"{where}.{field}: {val!r} is not one of {', '.join(allowed)}", f"{where}.{field}")
            return None
        return Scalar(norm, s.span, s.raw, s.quoted)

    def bool_field(self, entry: MapNode, field: str, where: str) -> Scalar | None:
        s = entry.get(field)
        if s is None:
            return None
        b = as_bool(s.value) if isinstance(s, Scalar) and str(s.value).lower() in ("true", "false") else None
        if b is None:
            self.bad(s, f"{where}.{field}: {getattr(s, 'value', s)!r} must be true or false", f"{where}.{field}")
            return None
        return Scalar(b, s.span, s.raw, s.quoted)

    def ref_field(self, entry: MapNode, field: str) -> Scalar | None:
        s = entry.get(field)
        if not isinstance(s, Scalar) or s.value is None:
            return None
        v = s.value
        if isinstance(v, str) and not v.startswith("["):
            return s  # a bare name: the token itself
        return Scalar(strip_ref(str(v)), s.span, s.raw, s.quoted)

    # -- build --------------------------------------------------------------------------------------
    def build(self) -> Iterator[Any]:
        root = self.root
        meta = self.table("DEVICE_METADATA").get("localhost")
        meta = meta if isinstance(meta, MapNode) else _EMPTY
        hostname = meta.get("hostname") if isinstance(meta.get("hostname"), Scalar) else None
        name = str(hostname.value) if hostname is not None and hostname.value else self.stem
        if ":" in self.stem:  # a YANG test vector: its test name identifies it
            name = self.stem
        bm = meta.get("buffer_model")
        sw = SwitchQos(name=name, file=self.file, format=self.fmt, span=root.span, path=self.path,
                       hostname=hostname, hwsku=meta.get("hwsku") if isinstance(meta.get("hwsku"), Scalar) else None,
                       buffer_model=bm if isinstance(bm, Scalar) else None, complete=self.complete,
                       tables=frozenset(str(k) for k in root), container_span=root.span)
        self.sw = sw
        self.meta = meta
        self._port_names = set(self.table("PORT")) if ("PORT" in root or self.complete) else None
        dps = meta.get("default_pfcwd_status")
        sw.default_pfcwd_status = dps if isinstance(dps, Scalar) else None
        self._ports()
        self._maps()
        self._wred()
        self._schedulers()
        self._pools_profiles()
        self._port_qos()
        self._queues()
        self._buffer_pg()
        self._buffer_queue()
        self._profile_lists()
        self._pfc_wd()
        self._cable()
        ltp = self.table("LOSSLESS_TRAFFIC_PATTERN")
        for _, e in ltp.items():
            if isinstance(e, MapNode):
                sw.lossless_mtu = self.int_field(e, "mtu", "LOSSLESS_TRAFFIC_PATTERN", 68, 9216)
                break
        if self.fmt == "sonic-yang":
            _strip_paths(sw)  # YANG-JSON is list-shaped: CONFIG_DB key paths do not address it
        yield from self.findings
        yield sw

    # PORT
    def port(self, name: str, span: Span, path: tuple) -> Port:
        p = self.sw.ports.get(name)
        if p is None:
            p = Port(name=name, span=span, path=path)
            self.sw.ports[name] = p
        return p

    def known_port(self, name: str, node: Any, where: str) -> bool:
        """Does ``name`` exist in PORT? Checked only when PORT is given or the document is complete."""
        if self._port_names is None:
            return True
        if name in self._port_names:
            return True
        self.bad(node, f"{where} refers to port '{name}', which is not in the PORT table",
                 f"{where}", code="NL011")
        return False

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

    # maps
    def _maps(self) -> None:
        for table, (kind, fmax, tmax, fname, tname) in MAP_TABLES.items():
            t = self.table(table)
            out = self.sw.maps.setdefault(kind, {})
            for mname, e in self.entries(table):
                qm = QosMap(name=mname, span=e.span, key_span=t.key_span(mname), kind=kind,
                            path=self.path + (table, mname))
                for k, v in e.items():
                    kspan = e.key_span(k)
                    fk = as_int(k)
                    if fk is None or not 0 <= fk <= fmax:
                        self.bad(e.keys_at.get(k) or e, f"{table}|{mname}: Invalid {fname} {k!r} (0..{fmax})",
                                 f"{table}.{mname}.{k}")
                        continue
                    tv = as_int(v.value) if isinstance(v, Scalar) else None
                    if tv is None or not 0 <= tv <= tmax:
                        self.bad(v, f"{table}|{mname}: Invalid {tname} {getattr(v, 'value', v)!r} for "
                                    f"{fname} {fk} (0..{tmax})", f"{table}.{mname}.{k}")
                        continue
                    qm.entries[fk] = Scalar(tv, v.span, v.raw, v.quoted)
                    qm.key_spans[fk] = kspan
                out[mname] = qm

    def _wred(self) -> None:
        t = self.table("WRED_PROFILE")
        for name, e in self.entries("WRED_PROFILE"):
            where = f"WRED_PROFILE|{name}"
            wp = WredProfile(name=name, span=e.span, key_span=t.key_span(name),
                             path=self.path + ("WRED_PROFILE", name))
            wp.ecn = self.enum_field(e, "ecn", where, ECN)
            for color in ("green", "yellow", "red"):
                c = WredColor(
                    min_threshold=self.int_field(e, f"{color}_min_threshold", where),
                    max_threshold=self.int_field(e, f"{color}_max_threshold", where),
                    # 0..100 is checked by QOS105 (all formats), only the type here
                    drop_probability=self.int_field(e, f"{color}_drop_probability", where, check_range=False),
                    enabled=self.bool_field(e, f"wred_{color}_enable", where))
                setattr(wp, color, c)
            self.sw.wred_profiles[name] = wp

    def _schedulers(self) -> None:
        t = self.table("SCHEDULER")
        for name, e in self.entries("SCHEDULER"):
            where = f"SCHEDULER|{name}"
            sch = Scheduler(name=name, span=e.span, key_span=t.key_span(name),
                            path=self.path + ("SCHEDULER", name))
            sch.type = self.enum_field(e, "type", where, ("strict", "dwrr", "wrr"), lower=True)
            if sch.type is not None and e["type"].value not in ("STRICT", "DWRR", "WRR"):
                self.bad(e["type"], f"{where}.type: {e['type'].value!r} is not one of DWRR, WRR, STRICT",
                         f"{where}.type")
            sch.weight = self.int_field(e, "weight", where, 1, 100)
            self.int_field(e, "priority", where, 0, 9)
            self.enum_field(e, "meter_type", where, ("packets", "bytes"))
            cir, pir = self.int_field(e, "cir", where), self.int_field(e, "pir", where)
            cbs, pbs = self.int_field(e, "cbs", where), self.int_field(e, "pbs", where)
            if cbs is not None and cir is None:
                self.bad(cbs, f"{where}: cbs can't be configured without cir", f"{where}.cbs")
            if pir is not None and cir is None:
                self.bad(pir, f"{where}: pir can't be configured without cir", f"{where}.pir")
            if pir is not None and cir is not None and pir.value < cir.value:
                self.bad(pir, f"{where}: pir ({pir.value}) must be greater than or equal to cir ({cir.value})",
                         f"{where}.pir")
            if pbs is not None and cbs is not None and pbs.value < cbs.value:
                self.bad(pbs, f"{where}: pbs ({pbs.value}) must be greater than or equal to cbs ({cbs.value})",
                         f"{where}.pbs")
            self.sw.schedulers[name] = sch

    def _pools_profiles(self) -> None:
        tp = self.table("BUFFER_POOL")
        for name, e in self.entries("BUFFER_POOL"):
            where = f"BUFFER_POOL|{name}"
            self.sw.buffer_pools[name] = BufferPool(
                name=name, span=e.span, key_span=tp.key_span(name), path=self.path + ("BUFFER_POOL", name),
                type=self.enum_field(e, "type", where, ("ingress", "egress", "both")),
                mode=self.enum_field(e, "mode", where, ("static", "dynamic")),
                size=self.int_field(e, "size", where), xoff=self.int_field(e, "xoff", where))
            self.int_field(e, "percentage", where, 0, 100)
        tb = self.table("BUFFER_PROFILE")
        for name, e in self.entries("BUFFER_PROFILE"):
            where = f"BUFFER_PROFILE|{name}"
            bp = BufferProfile(name=name, span=e.span, key_span=tb.key_span(name),
                               path=self.path + ("BUFFER_PROFILE", name))
            bp.pool = self.ref_field(e, "pool")
            if bp.pool is None:
                self.bad(_at(tb, name), f"{where}: missing mandatory field 'pool'",
                         f"{where}.pool")
            elif self.sw.buffer_pools or "BUFFER_POOL" in self.root or self.complete:
                if bp.pool.value not in self.sw.buffer_pools:
                    self.bad(bp.pool, f"{where}.pool: buffer pool '{bp.pool.value}' is not defined in "
                                      f"BUFFER_POOL", f"{where}.pool", code="NL011")
            bp.size = self.int_field(e, "size", where)
            if "size" not in e:
                self.bad(_at(tb, name), f"{where}: missing mandatory field 'size'", f"{where}.size")
            bp.xon = self.int_field(e, "xon", where)
            bp.xoff = self.int_field(e, "xoff", where)
            bp.xon_offset = self.int_field(e, "xon_offset", where)
            bp.dynamic_th = self.int_field(e, "dynamic_th", where, -8, 7)
            bp.static_th = self.int_field(e, "static_th", where)
            self.enum_field(e, "headroom_type", where, ("static", "dynamic"))
            self.enum_field(e, "packet_discard_action", where, ("drop", "trim"))
            self.sw.buffer_profiles[name] = bp

    def check_ref(self, ref: Scalar | None, table: str, known: Any, where: str, what: str) -> None:
        if ref is None or ref.value in known:
            return
        if table not in self.root and not self.complete:
            return  # a rendered fragment: the table lives in another file
        self.bad(ref, f"{where} refers to {what} '{ref.value}', which is not defined in {table}",
                 where, code="NL011")

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
            self.known_port(name, _at(t, name), where)
            p = self.port(name, t.key_span(name), self.path + ("PORT_QOS_MAP", name))
            p.qos_span, p.qos_path = e.span, self.path + ("PORT_QOS_MAP", name)
            p.maps = refs
            p.scheduler = sched
            p.pfc_path = p.qos_path + ("pfc_enable",)
            pe = e.get("pfc_enable")
            if isinstance(pe, Scalar):
                items = self.prio_list(pe, where + ".pfc_enable")
                if items is not None:
                    p.pfc_enable, p.pfc_enable_token = items, pe
            wd = e.get("pfcwd_sw_enable")
            if isinstance(wd, Scalar):
                items = self.prio_list(wd, where + ".pfcwd_sw_enable")
                if items is not None:
                    w = p.watchdog or Watchdog(path=self.path + ("PFC_WD", name))
                    w.priorities, w.priorities_token = items, wd
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

    def split_key(self, table: str, key: str, node: Any) -> tuple[str, str, bool] | None:
        parts = key.split("|")
        if len(parts) == 2:
            return parts[0], parts[1], False
        if len(parts) == 4:  # VOQ: host|asic|port|index
            return "|".join(parts[:3]), parts[3], True
        self.bad(node, f"{table}|{key}: key must be '<port>|<index>' (or '<host>|<asic>|<port>|<index>')",
                 f"{table}.{key}")
        return None

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
                pname, idx = parts
                if known is not None and pname not in known:
                    self.known_port(pname, _at(t, key), f"QUEUE|{key}")
            else:
                sk = self.split_key("QUEUE", str(key), _at(t, key))
                if sk is None:
                    continue
                pname, idx, _ = sk
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
            p = ports.get(pname) or self.port(pname, kspan, base + (key,))
            path = base + (key,)
            for q in qs:
                qc = p.queues.get(q)
                if qc is None:
                    p.queues[q] = QueueCfg(index=q, span=kspan, path=path, scheduler=sched, wred_profile=wred)
                else:
                    qc.scheduler, qc.wred_profile = sched or qc.scheduler, wred or qc.wred_profile

    def _buffer_pg(self) -> None:
        t = self.table("BUFFER_PG")
        for key, e in self.entries("BUFFER_PG"):
            where = f"BUFFER_PG|{key}"
            sk = self.split_key("BUFFER_PG", key, _at(t, key))
            if sk is None:
                continue
            pname, idx, _ = sk
            self.known_port(pname, _at(t, key), where)
            pgs = _ranges(idx)
            if pgs is None or any(not 0 <= g <= 7 for g in pgs):
                self.bad(_at(t, key), f"{where}: PG {idx!r} must match [0-7](-[0-7])?", where)
                continue
            prof = self.ref_field(e, "profile")
            if prof is not None and prof.value != "NULL":
                self.check_ref(prof, "BUFFER_PROFILE", self.sw.buffer_profiles, where + ".profile", "buffer profile")
            p = self.port(pname, t.key_span(key), self.path + ("BUFFER_PG", key))
            for g in pgs:
                p.pgs[g] = PgBinding(pg=g, span=t.key_span(key), path=self.path + ("BUFFER_PG", key), profile=prof)

    def _buffer_queue(self) -> None:
        t = self.table("BUFFER_QUEUE")
        for key, e in self.entries("BUFFER_QUEUE"):
            where = f"BUFFER_QUEUE|{key}"
            sk = self.split_key("BUFFER_QUEUE", key, _at(t, key))
            if sk is None:
                continue
            pname, idx, _ = sk
            self.known_port(pname, _at(t, key), where)
            qs = _ranges(idx)
            if qs is None:
                self.bad(_at(t, key), f"{where}: queue index {idx!r} is not a number or range", where)
                continue
            prof = self.ref_field(e, "profile")
            if prof is not None and prof.value != "NULL":
                self.check_ref(prof, "BUFFER_PROFILE", self.sw.buffer_profiles, where + ".profile", "buffer profile")
            p = self.port(pname, t.key_span(key), self.path + ("BUFFER_QUEUE", key))
            for q in qs:
                qc = p.queues.get(q) or QueueCfg(index=q, span=t.key_span(key), path=self.path + ("BUFFER_QUEUE", key))
                qc.buffer_profile = prof
                p.queues[q] = qc

    def _profile_lists(self) -> None:
        for table in ("BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST"):
            for key, e in self.entries(table):
                pl = e.get("profile_list")
                if not isinstance(pl, Scalar) or not isinstance(pl.value, str):
                    continue
                for name in pl.value.split(","):
                    ref = Scalar(strip_ref(name.strip()), pl.span, pl.raw, pl.quoted)
                    self.check_ref(ref, "BUFFER_PROFILE", self.sw.buffer_profiles, f"{table}|{key}.profile_list",
                                   "buffer profile")

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
            w.restoration_ms = self.int_field(e, "restoration_time", where, check_range=False)
            p.watchdog = w

    def _cable(self) -> None:
        for cname, e in self.entries("CABLE_LENGTH"):
            for pname, v in e.items():
                where = f"CABLE_LENGTH|{cname}.{pname}"
                if not isinstance(v, Scalar):
                    continue
                m = parse_cable_m(v.value) if isinstance(v.value, str) and v.value.strip().endswith("m") else None
                if m is None:
                    self.bad(v, f"{where}: {v.value!r} must look like '5m' (metres)", where)
                    continue
                p = self.sw.ports.get(str(pname))
                if p is None:
                    p = self.port(str(pname), e.key_span(pname), self.path + ("CABLE_LENGTH", cname, pname))
                p.cable_length = Scalar(m, v.span, v.raw, v.quoted)


def _strip_paths(sw: SwitchQos) -> None:
    for group in (sw.wred_profiles, sw.schedulers, sw.buffer_pools, sw.buffer_profiles,
                  *sw.maps.values()):
        for obj in group.values():
            obj.path = ()
    for p in sw.ports.values():
        p.path, p.qos_path, p.pfc_path = (), None, None
        for q in p.queues.values():
            q.path = ()
        for g in p.pgs.values():
            g.path = ()
        if p.watchdog is not None:
            p.watchdog.path = ()


@lru_cache(maxsize=256)
def _ranges(text: str) -> tuple[int, ...] | None:
    r = expand_range(text)
    return tuple(r) if r is not None else None


def _at(table: MapNode, key: Any) -> Scalar:
    """A located stand-in for an entry key (findings about a key point at the key)."""
    return table.keys_at.get(key) or Scalar(key, table.span)


_EMPTY = MapNode(Span("", 0, 0, 0, 0))
