"""netlint's native NIC QoS YAML → :class:`NicQos` (schema: ``schemas/nic.schema.json``).

For NICs whose configuration lives in no file netlint reads (a provisioning playbook, a golden image),
the platform team writes what the RDMA NICs run with in one small, strict file::

    nic: h100-rdma                  # a name
    node_group: gpu-a               # inventory nodes[].name it applies to (optional)
    trust: dscp
    pfc: [3]                        # priorities with PFC on
    dscp_to_priority: {26: 3, 48: 6}
    traffic_class: 106              # mlx5 global traffic class (ToS byte)
    congestion_control: dcqcn
    dcqcn:
      rp_enable: [3]
      np_enable: [3]
      cnp_dscp: 48
      cnp_priority: 6
      rpg_min_dec_fac: 50
    firmware:                       # NV config, as mlxconfig names it
      ROCE_CC_PRIO_MASK_P1: 8
      CNP_DSCP_P1: 48

Top-level values are runtime values; ``firmware:`` holds NV config. Recognised by content: a mapping
with ``nic:`` and at least one NIC key. Unknown keys are NL004, wrong types and ranges NL005.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

from netlint.loaders.base import Loader, parsed_yaml
from netlint.located import MapNode, Scalar
from netlint.nic.build import NicBuilder, scalar_text
from netlint.nic.params import PARAMS
from netlint.source import SourceFile

if TYPE_CHECKING:
    from netlint.models.nic_native import NativeNic

NIC_KEYS = ("trust", "pfc", "dcqcn", "firmware", "dscp_to_priority", "traffic_class", "cma_roce_tos",
            "congestion_control", "priority_to_tc", "roce_mode")


class NativeNicLoader(Loader):
    name = "native-nic"
    kind = "nics"
    suffixes = (".yaml", ".yml")

    def claims(self, src: SourceFile) -> bool:
        text = src.text
        if "nic:" not in text or not any(k + ":" in text for k in NIC_KEYS):
            return False
        docs, _ = parsed_yaml(src)
        root = docs[0] if docs else None
        if root is None:
            return text.lstrip().startswith("nic:")
        return isinstance(root, MapNode) and "nic" in root and any(k in root for k in NIC_KEYS)

    def load(self, src: SourceFile) -> Iterator[Any]:
        docs, problems = parsed_yaml(src)
        yield from problems
        if not docs:
            return
        # pydantic validates netlint's own formats; imported only when such a file is read
        from netlint.models.nic_native import NativeNic
        from netlint.validation import validate

        model, errors = validate(NativeNic, docs[0], "a NIC QoS file")
        yield from errors
        if model is not None:
            yield from convert(model, docs[0], src.path)


def convert(m: NativeNic, root: MapNode, file: str) -> list:
    b = NicBuilder(file, "native", root.span, str(m.nic.value))
    b.scope.update(device=m.device, interface=m.interface, host=m.host, node_group=m.node_group)
    rt = dict(layer="runtime")
    if m.trust is not None:
        b.put("trust", m.trust.value, m.trust.span, via="trust", **rt)
    if m.pfc is not None:
        node = root.get("pfc")
        b.put("pfc", tuple(sorted({s.value for s in m.pfc})), node.span, via="pfc", **rt)
    for d, prio in (m.dscp_to_priority or {}).items():
        b.put("dscp_to_prio", prio.value, prio.span, via="dscp_to_priority", index=d, **rt)
    for p, tc in (m.priority_to_tc or {}).items():
        b.put("prio_to_tc", tc.value, tc.span, via="priority_to_tc", index=p, **rt)
    for key in ("traffic_class", "cma_roce_tos", "roce_mode"):
        v = getattr(m, key)
        if v is not None:
            b.put(key, v.value, v.span, via=key, **rt)
    if m.congestion_control is not None:
        b.put("cc_algorithm", m.congestion_control.value, m.congestion_control.span, via="congestion_control", **rt)
    dc = m.dcqcn
    if dc is not None:
        node = root.get("dcqcn")
        for point in ("rp_enable", "np_enable"):
            listed = getattr(dc, point)
            if listed is None:
                continue
            seq = node.get(point) if isinstance(node, MapNode) else None
            on = {s.value: s for s in listed}
            for prio in range(8):
                span = on[prio].span if prio in on else seq.span
                b.put(point, prio in on, span, via=f"dcqcn.{point}", index=prio, **rt)
        for key, field in (("cnp_dscp", "cnp_dscp"), ("cnp_priority", "cnp_priority")):
            v = getattr(dc, field)
            if v is not None:
                b.put(key, v.value, v.span, via=f"dcqcn.{field}", **rt)
        for name in PARAMS:
            v = getattr(dc, name)
            if v is not None:
                b.put("dcqcn", v.value, v.span, via=f"dcqcn.{name}", index=name, **rt)
    for name, v in (m.firmware or {}).items():
        text = scalar_text(v) if isinstance(v, Scalar) else None
        if text is not None:
            b.firmware(name, text, v.span, via=f"firmware.{name}")
    if m.port is not None:
        return [_with_port(nic, m.port) for nic in b.build()]
    return b.build()


def _with_port(nic, port: Scalar):
    nic.port = nic.port if nic.port is not None else port.value
    return nic
