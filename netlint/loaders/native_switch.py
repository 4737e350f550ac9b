"""netlint's native switch QoS YAML → :class:`SwitchQos` (schema: ``schemas/switch.schema.json``).

For switches whose vendor format netlint does not read (EOS, NX-OS, Dell OS10 …), the network team
writes the QoS intent in one small, strict file. Its shape mirrors the normalized model::

    switch: leaf02                  # name, as in the inventory
    trust: dscp
    buffer_model: static            # static | dynamic (SONiC-style)
    dscp_to_tc: {26: 3, 48: 6}      # switch-wide maps (a port may override dscp_to_tc)
    tc_to_pg: {3: 3}
    tc_to_queue: {3: 3, 6: 6}
    pfc_priority_to_queue: {3: 3}
    pfc:
      priorities: [3]
      watchdog: {enabled: true, detection_ms: 200, restoration_ms: 400, action: drop, poll_interval_ms: 100}
    ecn:                            # per egress queue
      3: {enabled: true, min_bytes: 150000, max_bytes: 1500000, probability: 5, drop: false}
    scheduler:                      # per egress queue
      3: {type: dwrr, weight: 50}
      6: {type: strict}
    buffer_pools: {ingress_lossless_pool: {type: ingress, mode: static, size: 30000000}}
    buffer_profiles: {lossless_400g: {pool: ingress_lossless_pool, size: 19456, xon: 19456, xoff: 160000}}
    priority_groups: {3: {profile: lossless_400g}}
    ports:
      - {name: Ethernet0, speed: 400G, mtu: 9100, cable_length: 5}

Recognised by content: a mapping with ``switch:`` and at least one QoS key. Unknown keys are NL004
(with did-you-mean), wrong types and ranges NL005 — from the pydantic model, located.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

from netlint.loaders.base import Loader, parsed_yaml
from netlint.located import MapNode, Scalar, SeqNode, Span
from netlint.models.switch import (BufferPool, BufferProfile, PgBinding, Port, QosMap, QueueCfg, Scheduler,
                                   SwitchQos, Watchdog, WredColor, WredProfile)
from netlint.source import SourceFile

if TYPE_CHECKING:
    from netlint.models.switch_native import NativeEcn, NativeSwitch, NativeWatchdog

QOS_KEYS = ("ports", "pfc", "dscp_to_tc", "ecn", "scheduler", "buffer_profiles", "trust", "tc_to_queue")
ALL_PORTS = "(all ports)"


class NativeSwitchLoader(Loader):
    name = "native-switch"
    kind = "switches"
    suffixes = (".yaml", ".yml")

    def claims(self, src: SourceFile) -> bool:
        text = src.text
        if "switch:" not in text or not any(k + ":" in text for k in QOS_KEYS):
            return False
        docs, _ = parsed_yaml(src)
        root = docs[0] if docs else None
        if root is None:
            return text.lstrip().startswith("switch:")
        return isinstance(root, MapNode) and "switch" in root and any(k in root for k in QOS_KEYS)

    def load(self, src: SourceFile) -> Iterator[Any]:
        docs, problems = parsed_yaml(src)
        yield from problems
        if not docs:
            return
        root = docs[0]
        # pydantic validates netlint's own formats; imported only when such a file is read
        from netlint.models.switch_native import NativeSwitch
        from netlint.validation import validate

        model, errors = validate(NativeSwitch, root, "a switch QoS file")
        yield from errors
        if model is not None:
            yield convert(model, root, src.path)


def _node(root: Any, *path: Any) -> Any:
    node = root
    for p in path:
        if isinstance(node, MapNode):
            node = node.get(p)
        elif isinstance(node, SeqNode) and isinstance(p, int) and p < len(node):
            node = node[p]
        else:
            return None
    return node


def _span(root: Any, *path: Any, default: Span) -> Span:
    n = _node(root, *path)
    return n.span if n is not None and hasattr(n, "span") else default


def _qmap(kind: str, name: str, entries: dict | None, root: MapNode, path: tuple) -> QosMap | None:
    if entries is None:
        return None
    node = _node(root, *path)
    span = node.span if node is not None else root.span
    parent = _node(root, *path[:-1])
    qm = QosMap(name=name, kind=kind, span=span,
                key_span=parent.key_span(path[-1]) if isinstance(parent, MapNode) else span, path=path)
    for k, v in entries.items():
        qm.entries[k] = v
        qm.key_spans[k] = node.key_span(k) if isinstance(node, MapNode) else span
    return qm


def _watchdog(w: NativeWatchdog | None, root: MapNode, path: tuple) -> Watchdog | None:
    if w is None:
        return None
    return Watchdog(span=_span(root, *path, default=root.span), path=path, enabled=w.enabled,
                    detection_ms=w.detection_ms, restoration_ms=w.restoration_ms, action=w.action)


def _wred(q: int, e: NativeEcn, root: MapNode) -> WredProfile:
    path = ("ecn", q)
    node = _node(root, *path)
    span = node.span if node is not None else root.span
    enabled = e.enabled if e.enabled is not None else Scalar(True, span)
    ecn = Scalar("ecn_all" if enabled.value else "ecn_none", enabled.span, enabled.raw)
    name = e.profile.value if e.profile is not None else f"queue{q}"
    return WredProfile(name=name, span=span, key_span=_node(root, "ecn").key_span(q), path=path, ecn=ecn,
                       green=WredColor(min_threshold=e.min_bytes, max_threshold=e.max_bytes,
                                       drop_probability=e.probability, enabled=e.drop))


def convert(m: NativeSwitch, root: MapNode, file: str) -> SwitchQos:
    sw = SwitchQos(name=str(m.switch.value), file=file, format="native", span=root.span,
                   trust=m.trust, buffer_model=m.buffer_model, complete=True,
                   tables=frozenset(str(k) for k in root), container_span=root.span)
    glob: dict[str, Scalar] = {}
    for kind, field in (("dscp_to_tc", "dscp_to_tc"), ("tc_to_pg", "tc_to_pg"), ("tc_to_queue", "tc_to_queue"),
                        ("pfc_to_queue", "pfc_priority_to_queue")):
        qm = _qmap(kind, field, getattr(m, field), root, (field,))
        if qm is not None:
            sw.maps.setdefault(kind, {})[qm.name] = qm
            glob[kind] = Scalar(qm.name, qm.key_span or qm.span)
    sw.global_maps = glob
    for q, e in (m.ecn or {}).items():
        wp = _wred(q, e, root)
        sw.wred_profiles[wp.name] = wp
    for q, s in (m.scheduler or {}).items():
        path = ("scheduler", q)
        sw.schedulers[f"queue{q}"] = Scheduler(
            name=f"queue{q}", span=_span(root, *path, default=root.span),
            key_span=_node(root, "scheduler").key_span(q), path=path,
            type=Scalar(str(s.type.value).lower(), s.type.span, s.type.raw), weight=s.weight)
    for name, p in (m.buffer_pools or {}).items():
        path = ("buffer_pools", name)
        sw.buffer_pools[name] = BufferPool(name=name, span=_span(root, *path, default=root.span),
                                           key_span=_node(root, "buffer_pools").key_span(name), path=path,
                                           type=p.type, mode=p.mode, size=p.size, xoff=p.xoff)
    for name, p in (m.buffer_profiles or {}).items():
        path = ("buffer_profiles", name)
        sw.buffer_profiles[name] = BufferProfile(
            name=name, span=_span(root, *path, default=root.span),
            key_span=_node(root, "buffer_profiles").key_span(name), path=path, pool=p.pool, size=p.size,
            xon=p.xon, xoff=p.xoff, xon_offset=p.xon_offset, dynamic_th=p.dynamic_th, static_th=p.static_th)
    pfc = m.pfc
    if pfc is not None and pfc.watchdog is not None:
        sw.watchdog_poll_ms = pfc.watchdog.poll_interval_ms
        sw.watchdog_global_span = _span(root, "pfc", "watchdog", default=root.span)

    queue_refs: dict[int, tuple] = {}
    for q in sorted(set(m.ecn or ()) | set(m.scheduler or ())):
        wref = sref = None
        if m.ecn and q in m.ecn:
            wp = sw.wred_profiles[_wred_name(q, m.ecn[q])]
            wref = Scalar(wp.name, wp.span)
        if m.scheduler and q in m.scheduler:
            sref = Scalar(f"queue{q}", sw.schedulers[f"queue{q}"].span)
        queue_refs[q] = (_span(root, "ecn", q, default=_span(root, "scheduler", q, default=root.span)), wref, sref)
    ports = list(enumerate(m.ports)) or [(None, None)]
    for i, np in ports:
        ppath: tuple = ("ports", i) if i is not None else ()
        pnode = _node(root, *ppath) if ppath else root
        name = np.name.value if np is not None else ALL_PORTS
        port = Port(name=str(name), span=pnode.span if pnode is not None else root.span, path=ppath)
        if np is not None:
            port.speed, port.mtu, port.cable_length = np.speed, np.mtu, np.cable_length
        port.qos_span, port.qos_path = port.span, ppath
        # PFC: the port's own block, else the switch-wide one
        own = np.pfc if np is not None else None
        src_pfc, base = (own, ppath + ("pfc",)) if own is not None and own.priorities is not None else (pfc, ("pfc",))
        if src_pfc is not None and src_pfc.priorities is not None:
            seq = _node(root, *base, "priorities")
            port.pfc_enable = list(src_pfc.priorities)
            port.pfc_enable_token = Scalar([s.value for s in src_pfc.priorities],
                                           seq.span if seq is not None else root.span)
        port.pfc_path = base + ("priorities",)
        wd_src = own.watchdog if own is not None and own.watchdog is not None else (pfc.watchdog if pfc else None)
        wd_path = (ppath + ("pfc", "watchdog")) if own is not None and own.watchdog is not None else ("pfc", "watchdog")
        port.watchdog = _watchdog(wd_src, root, wd_path)
        if np is not None and np.dscp_to_tc is not None:
            qm = _qmap("dscp_to_tc", f"{name}.dscp_to_tc", np.dscp_to_tc, root, ppath + ("dscp_to_tc",))
            sw.maps.setdefault("dscp_to_tc", {})[qm.name] = qm
            port.maps = {"dscp_to_tc": Scalar(qm.name, qm.key_span or qm.span)}
        for q, (qspan, wref, sref) in queue_refs.items():
            port.queues[q] = QueueCfg(index=q, span=qspan, path=("ecn", q), wred_profile=wref, scheduler=sref)
        pg_src, pg_path = ((np.priority_groups, ppath + ("priority_groups",))
                           if np is not None and np.priority_groups is not None
                           else (m.priority_groups, ("priority_groups",)))
        for g, b in (pg_src or {}).items():
            port.pgs[g] = PgBinding(pg=g, span=_span(root, *pg_path, g, default=root.span), path=pg_path + (g,),
                                    profile=b.profile)
        sw.ports[port.name] = port
    return sw


def _wred_name(q: int, e: NativeEcn) -> str:
    return e.profile.value if e.profile is not None else f"queue{q}"
