"""A saved listing of the NIC's sysfs / configfs / debugfs files → runtime values.

Two shapes, one line per file: ``path value`` (``for f in …; do echo "$f $(cat $f)"; done``) and
``path:value`` (``grep -r . /sys/class/net/*/ecn``; debugfs paths hold a PCI address with colons,
so the split is at the colon after a known file name). Files netlint reads:

- ``/sys/class/net/<if>/ecn/roce_rp|roce_np/enable/<prio>`` (DCQCN per priority) and the parameter
  files beside them (also under ``…/params/``): MLNX_OFED "Explicit Congestion Notification (ECN)",
  https://docs.nvidia.com/networking/display/mlnxofedv23041130/explicit+congestion+notification+(ecn)
- ``/sys/class/net/<if>/qos/trust`` (what ``mlnx_qos --trust`` writes; Mellanox/mlnx-tools@8fbfd9cf
  python/mlnx_qos L144)
- ``/sys/class/infiniband/<hca>/tc/<port>/traffic_class`` (``Global tclass=106`` or a number;
  openucx/ucx#11105)
- ``/sys/kernel/config/rdma_cm/<hca>/ports/<port>/default_roce_tos`` and ``default_roce_mode``
  (kernel Documentation/ABI/testing/configfs-rdma_cm; what ``cma_roce_tos`` writes,
  Mellanox/mlnx-tools@8fbfd9cf sbin/cma_roce_tos L109-112)
- ``/sys/kernel/debug/mlx5/<pci>/cc_params/<name>`` (upstream kernel; names in
  :mod:`netlint.nic.params`)

Each interface, RDMA device port and PCI function is its own NicQos: a listing does not say which
netdev belongs to which RDMA device.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from netlint.loaders.nic_text import DumpLoader
from netlint.located import Scalar
from netlint.nic.build import NicBuilder
from netlint.nic.params import BY_DEBUGFS, PARAMS, SYSFS_NP
from netlint.nic.text import Lines, nv_int
from netlint.source import SourceFile

_PATHS = (
    ("net", re.compile(r"^/sys/class/net/(?P<id>[^/\s]+)/ecn/(?P<pt>roce_rp|roce_np)/(?:params/)?(?P<leaf>[\w/]+)$")),
    ("net", re.compile(r"^/sys/class/net/(?P<id>[^/\s]+)/qos/(?P<leaf>trust)$")),
    ("ib", re.compile(r"^/sys/class/infiniband/(?P<id>[^/\s]+)/tc/(?P<port>\d+)/(?P<leaf>traffic_class)$")),
    ("ib", re.compile(r"^(?:/sys/kernel)?/config/rdma_cm/(?P<id>[^/\s]+)/ports/(?P<port>\d+)/"
                      r"(?P<leaf>default_roce_tos|default_roce_mode)$")),
    ("pci", re.compile(r"^/sys/kernel/debug/mlx5/(?P<id>[^/\s]+)/cc_params/(?P<leaf>\w+)$")),
)


def _match(path: str):
    for scope, rx in _PATHS:
        m = rx.match(path)
        if m is not None:
            return scope, m
    return None


def split(line: str) -> tuple[str, int, re.Match, str] | None:
    """(scope, value start, path match, value text) of one listing line, or None."""
    first = line.split(None, 1)[0] if line.strip() else ""
    if not first.startswith("/"):
        return None
    lead = line.index(first)
    hit = _match(first)
    if hit is not None:  # "path value"
        rest = line[lead + len(first):]
        start = lead + len(first) + (len(rest) - len(rest.lstrip()))
        return hit[0], start, hit[1], line[start:].rstrip()
    for pos in [i for i, c in enumerate(first) if c == ":"][::-1]:  # "path:value"
        hit = _match(first[:pos])
        if hit is not None:
            start = lead + pos + 1
            return hit[0], start, hit[1], line[start:].rstrip()
    return None


class SysfsLoader(DumpLoader):
    name = "nic-sysfs"

    def claims(self, src: SourceFile) -> bool:
        text = src.text
        if "/sys/" not in text and "/config/rdma_cm/" not in text:
            return False
        return any(split(line) is not None for line in text.splitlines())

    def load(self, src: SourceFile) -> Iterator[Any]:
        lines = Lines(src.path, src.text)
        builders: dict[tuple, NicBuilder] = {}
        for i, line in lines:
            parsed = split(line)
            if parsed is None:
                continue
            scope, start, m, value = parsed
            port = int(m.group("port")) if "port" in m.groupdict() and m.group("port") else None
            key = (scope, m.group("id"), port)
            b = builders.get(key)
            if b is None:
                b = builders[key] = NicBuilder(src.path, "sysfs", lines.line_span(i), m.group("id"))
                ident = Scalar(m.group("id"), lines.span(i, line.index(m.group("id")),
                                                         line.index(m.group("id")) + len(m.group("id"))))
                b.scope["interface" if scope == "net" else "device"] = ident
            _value(b, lines, i, start, m, value, port)
        for b in builders.values():
            if not b.empty():
                yield from b.build(per_port=True)  # the path names the port


def _value(b: NicBuilder, lines: Lines, i: int, start: int, m: re.Match, value: str, port: int | None) -> None:
    leaf = m.group("leaf")
    pt = m.groupdict().get("pt")
    num = re.search(r"-?\d+", value) if leaf != "trust" else None
    if leaf == "trust":
        word = value.strip().lower()
        if word in ("dscp", "pcp"):
            b.put("trust", word, lines.span(i, start, start + len(value.strip())), layer="runtime", via="qos/trust")
        return
    if num is None:
        return
    span = lines.span(i, start + num.start(), start + num.end())
    n = int(num.group(0))
    via = f"{pt}/{leaf}" if pt else leaf
    common = dict(layer="runtime", via=via, raw=num.group(0), port=port)
    if leaf == "default_roce_mode":
        mode = 2 if "v2" in value.lower() else 1 if "v1" in value.lower() else None
        if mode is not None:
            b.put("roce_mode", mode, lines.span(i, start, start + len(value)), **{**common, "raw": value})
    elif leaf == "traffic_class":
        b.put("traffic_class", n, span, **common)
    elif leaf == "default_roce_tos":
        b.put("cma_roce_tos", n, span, **common)
    elif pt and leaf.startswith("enable/"):
        prio = leaf.split("/", 1)[1]
        if prio.isascii() and prio.isdigit() and int(prio) < 8:
            b.put("rp_enable" if pt == "roce_rp" else "np_enable", n != 0, span, index=int(prio), **common)
    elif pt == "roce_np" and leaf in SYSFS_NP:
        b.put(SYSFS_NP[leaf], n, span, **common)
    elif pt and leaf in PARAMS:
        b.put("dcqcn", n, span, index=leaf, **common)
    elif not pt and leaf in BY_DEBUGFS:
        key = BY_DEBUGFS[leaf]
        if key in ("cnp_dscp", "cnp_priority"):
            b.put(key, n, span, **common)
        else:
            b.put("dcqcn", n, span, index=key, **common)
    elif not pt and leaf in ("np_cnp_prio_mode", "rtt_resp_dscp", "rtt_resp_dscp_valid"):
        b.put("other", nv_int(num.group(0)), span, index=leaf, **common)
