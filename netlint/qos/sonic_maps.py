"""SONiC QoS maps, WRED profiles and schedulers (a mixin of :class:`netlint.qos.sonic_tables.SonicBuilder`)."""

from __future__ import annotations

from netlint.located import Scalar
from netlint.models.switch import QosMap, Scheduler, WredColor, WredProfile
from netlint.qos.sonic_catalogue import ECN, MAP_TABLES
from netlint.qos.units import as_int


class MapTables:
    """Reads the map tables (``DSCP_TO_TC_MAP`` …), ``WRED_PROFILE`` and ``SCHEDULER``."""

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
