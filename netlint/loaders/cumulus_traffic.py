"""Legacy Cumulus Linux ``traffic.conf`` / ``qos_features.conf`` (``key = value`` lines) → :class:`SwitchQos`.

Read (Cumulus Linux 4.x User Guide, Quality of Service; public sample ``traffic_RocE_Lossless.conf``):

- ``traffic.packet_priority_source_set = [802.1p,dscp]`` → trust;
- ``traffic.cos_N.priority_source.dscp = [...]`` / ``.8021p`` → DSCP→TC / PCP→TC (internal cos = TC);
  when a DSCP is listed for several cos, the last line wins [unconfirmed; the saved sample lists
  DSCP 42 under cos_0's catch-all and under cos_4, clearly meaning cos_4];
- ``pfc.port_group_list``, ``pfc.<group>.{cos_list, port_set, cable_length}`` → PFC priorities and
  cable length of the ports in ``port_set`` (``swp1-swp32``);
- ``ecn_red.<group>.{cos_list, port_set, ecn_enable, red_enable, min_threshold_bytes,
  max_threshold_bytes, probability}`` and ``default_ecn_red_conf.{egress_queue_list, …}`` → a WRED
  profile per group on those egress queues (cos = queue);
- ``priority_group.<name>.{cos_list, weight}`` → a DWRR scheduler per cos (weight 0 is left untyped:
  its meaning is not confirmed);
- Cumulus Linux 5 ``default_egress_sched.egr_queue_N.bw_percent`` → the scheduler of egress queue N:
  DWRR with that weight, strict priority for 0 (NVIDIA Cumulus Linux 5.x User Guide, Quality of
  Service › Egress Scheduling: "If you specify a value of 0 for an egress queue, Cumulus Linux assigns
  strict priority mode").

A group a ``*.port_group_list`` / ``traffic.priority_group_list`` names with no keys (NL011) and keys of
a group the list leaves out (NL004; a file with no list at all is an excerpt, not judged) are warnings: switchd configures only the listed groups (Cumulus Linux
4.2 User Guide, Buffer and Queue Management, "Priority Flow Control").

Not modelled: ``port_buffer_bytes`` / ``xoff_size`` / ``xon_delta`` (Cumulus buffer semantics differ
from SONiC's xoff headroom; headroom rules stay silent) and the PFC watchdog (configured elsewhere on
these releases; QOS106 does not judge this format). Cumulus defaults the cable length, so QOS111 does
not either.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from netlint.findings import Finding, Severity
from netlint.loaders.base import Loader
from netlint.located import Scalar, Span
from netlint.models.switch import Port, QosMap, QueueCfg, Scheduler, SwitchQos, WredColor, WredProfile
from netlint.qos.units import as_bool, as_int
from netlint.source import SourceFile

_LINE = re.compile(r"^\s*([A-Za-z0-9_.\-]+)\s*=\s*(.*?)\s*$")
_PREFIXES = ("traffic.", "pfc.", "ecn_red.", "default_ecn_red_conf.", "priority_group.", "default_egress_sched.")
_EGRESS = re.compile(r"default_egress_sched\.egr_queue_([0-7])\.bw_percent\Z")
# the group lists and the key families of their groups: switchd configures only the groups a list names
_GROUP_LISTS = (("pfc.port_group_list", "pfc."), ("ecn_red.port_group_list", "ecn_red."),
                ("traffic.priority_group_list", "priority_group."))


class CumulusTrafficLoader(Loader):
    name = "cumulus-traffic-conf"
    kind = "switches"
    suffixes = (".conf",)
    filenames = ("traffic.conf", "qos_features.conf")

    def claims(self, src: SourceFile) -> bool:
        text = src.text
        return "traffic.cos_" in text or ("pfc." in text and "cos_list" in text)

    def load(self, src: SourceFile) -> Iterator[Any]:
        yield from _Builder(src).build()


class _Builder:
    def __init__(self, src: SourceFile):
        self.src = src
        self.kv: dict[str, Scalar] = {}
        self.findings: list[Finding] = []
        text = src.text
        offset = 0
        for lineno, line in enumerate(text.splitlines(keepends=True), 1):
            body = line.rstrip("\r\n")
            stripped = body.strip()
            if stripped and not stripped.startswith("#"):
                m = _LINE.match(body)
                if m and m.group(1).startswith(_PREFIXES) or (m and "." not in m.group(1)):
                    vstart = m.start(2)
                    val = m.group(2)
                    span = Span(src.path, lineno, vstart + 1, lineno, vstart + 1 + len(val),
                                offset + vstart, offset + vstart + len(val))
                    self.kv[m.group(1)] = Scalar(val, span, val)
                elif not m:
                    self.findings.append(Finding("NL003", "expected 'key = value'", Span(
                        src.path, lineno, 1, lineno, len(body) + 1, offset, offset + len(body)),
                        Severity.WARNING, key=f"line:{lineno}"))
            offset += len(line)

    def items(self, key: str) -> list[Scalar]:
        """``[4,5]`` → located ints (sub-spans); bad items become NL005."""
        tok = self.kv.get(key)
        if tok is None:
            return []
        raw = tok.value
        inner = raw[1:-1] if raw.startswith("[") and raw.endswith("]") else raw
        base = 1 if raw.startswith("[") else 0
        out, pos = [], 0
        for part in inner.split(","):
            t = part.strip()
            lead = len(part) - len(part.lstrip())
            if t:
                n = as_int(t)
                start = tok.span.start + base + pos + lead
                col = tok.span.col + base + pos + lead
                span = Span(tok.span.file, tok.span.line, col, tok.span.line, col + len(t), start, start + len(t))
                if n is None:
                    self.findings.append(Finding("NL005", f"{key}: {t!r} is not a number", span, key=key))
                else:
                    out.append(Scalar(n, span, t))
            pos += len(part) + 1
        return out

    def names(self, key: str) -> list[str]:
        tok = self.kv.get(key)
        if tok is None:
            return []
        raw = tok.value.strip("[]")
        return [p.strip() for p in raw.split(",") if p.strip()]

    def ports(self, key: str) -> list[str]:
        tok = self.kv.get(key)
        if tok is None:
            return []
        out = []
        for part in tok.value.strip("[]").split(","):
            part = part.strip()
            m = re.match(r"^([A-Za-z]+)(\d+)-(?:[A-Za-z]+)?(\d+)$", part)
            if m:
                lo, hi = int(m.group(2)), int(m.group(3))
                out.extend(f"{m.group(1)}{i}" for i in range(lo, hi + 1) if hi - lo < 1024)
            elif part:
                out.append(part)
        return out

    def build(self) -> Iterator[Any]:
        src = self.src
        stem = src.path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        root = Span(src.path, 1, 1, 1, 1, 0, 0)
        sw = SwitchQos(name=stem, file=src.path, format="cumulus-traffic", span=root,
                       tables=frozenset(k.split(".", 1)[0] for k in self.kv),
                       container_span=root)
        trust = self.kv.get("traffic.packet_priority_source_set")
        if trust is not None:
            srcs = set(self.names("traffic.packet_priority_source_set"))
            t = "both" if {"802.1p", "dscp"} <= srcs else "dscp" if "dscp" in srcs else "pcp" if srcs else None
            sw.trust = Scalar(t, trust.span, trust.raw) if t else None
        for kind, suffix in (("dscp_to_tc", "dscp"), ("dot1p_to_tc", "8021p")):
            qm = QosMap(name=f"traffic.{suffix}", kind=kind, span=root)
            for cos in range(8):
                key = f"traffic.cos_{cos}.priority_source.{suffix}"
                for item in self.items(key):
                    qm.entries[item.value] = Scalar(cos, item.span, item.raw)
                    qm.key_spans[item.value] = item.span
            if qm.entries:
                first = min((s.span for s in qm.entries.values()), key=lambda s: s.start)
                qm.span = first
                sw.maps[kind] = {qm.name: qm}
                sw.global_maps[kind] = Scalar(qm.name, first)

        def port(name: str) -> Port:
            p = sw.ports.get(name)
            if p is None:
                p = sw.ports[name] = Port(name=name, span=root)
            return p

        for group in self.names("pfc.port_group_list"):
            if not any(k.startswith(f"pfc.{group}.") for k in self.kv):
                continue  # a group named with no settings configures nothing (NL011 says so)
            cos = self.items(f"pfc.{group}.cos_list")
            tok = self.kv.get(f"pfc.{group}.cos_list")
            cable = self.kv.get(f"pfc.{group}.cable_length")
            cl = as_int(cable.value) if cable is not None else None
            for pname in self.ports(f"pfc.{group}.port_set") or ["(all ports)"]:
                p = port(pname)
                p.span = self.kv.get(f"pfc.{group}.port_set", tok).span if tok else root
                p.pfc_enable = list(cos)
                p.pfc_enable_token = Scalar([c.value for c in cos], tok.span, tok.raw) if tok else None
                p.pfc_path = (f"pfc.{group}.cos_list",)
                if cl is not None:
                    p.cable_length = Scalar(cl, cable.span, cable.raw)
        ecn_groups = [(g, f"ecn_red.{g}", f"ecn_red.{g}.cos_list") for g in self.names("ecn_red.port_group_list")]
        if any(k.startswith("default_ecn_red_conf.") for k in self.kv):
            ecn_groups.append(("default_ecn_red_conf", "default_ecn_red_conf", "default_ecn_red_conf.egress_queue_list"))
        for group, prefix, qkey in ecn_groups:
            def num(field: str) -> Scalar | None:
                t = self.kv.get(f"{prefix}.{field}")
                n = as_int(t.value) if t is not None else None
                return Scalar(n, t.span, t.raw) if n is not None else None

            ecn = self.kv.get(f"{prefix}.ecn_enable")
            red = self.kv.get(f"{prefix}.red_enable")
            on = as_bool(ecn.value) if ecn is not None else None
            anchor = self.kv.get(qkey) or ecn
            wp = WredProfile(name=group, span=anchor.span if anchor else root,
                             ecn=Scalar("ecn_all" if on else "ecn_none", ecn.span, ecn.raw) if on is not None else None,
                             green=WredColor(min_threshold=num("min_threshold_bytes"),
                                             max_threshold=num("max_threshold_bytes"),
                                             drop_probability=num("probability"),
                                             enabled=Scalar(as_bool(red.value), red.span, red.raw)
                                             if red is not None and as_bool(red.value) is not None else None))
            sw.wred_profiles[group] = wp
            queues = self.items(qkey)
            targets = self.ports(f"{prefix}.port_set") or list(sw.ports) or ["(all ports)"]
            for pname in targets:
                p = port(pname)
                for q in queues:
                    qc = p.queues.get(q.value) or QueueCfg(index=q.value, span=q.span)
                    qc.wred_profile = Scalar(group, wp.span)
                    p.queues[q.value] = qc
        for group in self.names("traffic.priority_group_list"):
            weight = self.kv.get(f"priority_group.{group}.weight")
            w = as_int(weight.value) if weight is not None else None
            for cos in self.items(f"priority_group.{group}.cos_list"):
                sch = Scheduler(name=f"{group}:cos{cos.value}", span=cos.span,
                                type=Scalar("dwrr", weight.span, weight.raw) if w else None,
                                weight=Scalar(w, weight.span, weight.raw) if w else None)
                sw.schedulers[sch.name] = sch
                for p in sw.ports.values():
                    qc = p.queues.get(cos.value) or QueueCfg(index=cos.value, span=cos.span)
                    qc.scheduler = Scalar(sch.name, sch.span)
                    p.queues[cos.value] = qc
        for key, tok in self.kv.items():  # Cumulus Linux 5: `default_egress_sched.egr_queue_N.bw_percent`
            m = _EGRESS.match(key)
            n = as_int(tok.value) if m else None
            if m is None or n is None:
                continue
            q = int(m.group(1))
            sch = Scheduler(name=f"default_egress_sched:queue{q}", span=tok.span,
                            type=Scalar("strict" if n == 0 else "dwrr", tok.span, tok.raw),
                            weight=Scalar(n, tok.span, tok.raw) if n else None)
            sw.schedulers[sch.name] = sch
            for p in sw.ports.values():
                qc = p.queues.get(q) or QueueCfg(index=q, span=tok.span)
                qc.scheduler = Scalar(sch.name, sch.span)
                p.queues[q] = qc
        self._groups()
        yield from self.findings
        yield sw

    def _groups(self) -> None:
        """A group a list names with no settings, and settings of a group no list names: switchd
        configures only the listed groups, from their keys, so both are silent no-ops."""
        for list_key, family in _GROUP_LISTS:
            listed = self.names(list_key)
            keyed: dict[str, Scalar] = {}
            for key, tok in self.kv.items():
                parts = key.split(".")
                if key.startswith(family) and len(parts) >= 3 and key != list_key:
                    keyed.setdefault(parts[1], tok)
            tok = self.kv.get(list_key)
            for group in listed:
                if group not in keyed:
                    self.findings.append(Finding(
                        "NL011", f"{list_key} names {group}, but no {family}{group}.* key sets it: switchd "
                                 f"configures nothing for that group", tok.span, Severity.WARNING,
                        key=f"{list_key}:{group}"))
            if tok is None:  # no list at all: an excerpt, or a file another one completes — said, not judged
                if keyed:
                    first = min(keyed.values(), key=lambda t: t.span.start)
                    self.findings.append(Finding(
                        "NL012", f"{', '.join(sorted(keyed))}: {family}<group>.* keys not read, because the file "
                                 f"has no {list_key} to name the groups switchd configures", first.span,
                        Severity.INFO, key=f"{list_key}:absent"))
                continue
            for group, first in keyed.items():
                if group not in listed:
                    self.findings.append(Finding(
                        "NL004", f"{family}{group}.* is set, but {list_key} does not name {group}: switchd "
                                 f"reads only the groups that list names, so these keys do nothing", Span(
                            first.span.file, first.span.line, 1, first.span.line, 1,
                            first.span.start - first.span.col + 1, first.span.start - first.span.col + 1),
                        Severity.WARNING, key=f"{family}{group}:unlisted"))
