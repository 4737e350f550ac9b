"""Which inventory node group each NIC file describes, and what the files of one group say together.

A NicQos is bound, first match wins, to:

1. the node group the file itself names (native ``node_group:``): ``how == "file"``;
2. the group of the inventory ``nic_configs`` entry that lists the file
   (``{config: …, node_group: gpu-a}``): ``how == "inventory"``;
3. the inventory's only node group: ``how == "only-group"``;
4. every node group (a file listed without a group, or found by walking, in an inventory with
   several groups describes the cluster's NICs): ``how == "all-groups"``.

A named group the inventory does not have binds to nothing (``group`` None, ``how ==
"unknown-group"``); without an inventory ``how == "no-inventory"``. Rules that join a NIC with a
switch or an NCCL launch read ``nics_of(ws, group)``; ``layer_conflicts`` pairs a firmware value in
one file with a different runtime value of the same parameter in another file of the group.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from netlint.located import Scalar

if TYPE_CHECKING:
    from netlint.models.inventory import Nodes
    from netlint.models.nic import NicQos, NicValue
    from netlint.workspace import Workspace


@dataclass(frozen=True, eq=False)
class NicBinding:
    nic: "NicQos"
    groups: tuple  # the inventory Nodes this NIC file describes (empty: none known)
    how: str       # file | inventory | only-group | all-groups | unknown-group | no-inventory
    ref: Scalar | None = None   # the statement that binds it (the file's node_group, the entry's)
    host: Scalar | None = None  # the host, when the file or its inventory entry names one


def bindings(ws: "Workspace") -> list[NicBinding]:
    """One binding per NicQos in ``ws.nics`` (computed once per run)."""
    return ws.derived("nic.bindings", _bind)


def nics_of(ws: "Workspace", group: "Nodes") -> list["NicQos"]:
    """The NicQos that describe node group ``group``."""
    return [b.nic for b in bindings(ws) if any(g is group for g in b.groups)]


def nic_groups(ws: "Workspace") -> list[tuple["Nodes | None", list["NicQos"]]]:
    """(node group, its NicQos) for every inventory node group, in inventory order; without an
    inventory one entry ``(None, every NicQos)``."""
    inv = ws.inventory
    if inv is None:
        return [(None, list(ws.nics))] if ws.nics else []
    return [(g, nics_of(ws, g)) for g in inv.node_groups]


def _entries(ws: "Workspace") -> dict[str, tuple[Scalar | None, Scalar | None]]:
    """display path -> (node_group, host) of each inventory nic_configs entry that names them."""
    from netlint.discovery import display_path

    inv = ws.inventory
    if inv is None or ws.inventory_file is None:
        return {}
    base = (ws.root / ws.inventory_file).parent
    out = {}
    for entry in inv.nic_configs:
        if not hasattr(entry, "configs"):
            continue
        for ref in entry.configs:
            out[display_path(base / ref.value, ws.root)] = (entry.node_group, entry.host)
    return out


def _bind(ws: "Workspace") -> list[NicBinding]:
    inv = ws.inventory
    groups = list(inv.node_groups) if inv is not None else []
    by_name = {g.name.value: g for g in groups if g.name is not None}
    entries = _entries(ws)
    out = []
    for nic in ws.nics:
        entry_group, entry_host = entries.get(nic.file, (None, None))
        host = nic.host or entry_host
        named, how = (nic.node_group, "file") if nic.node_group is not None else (entry_group, "inventory")
        if inv is None:
            out.append(NicBinding(nic, (), "no-inventory", named, host))
        elif named is not None:
            g = by_name.get(named.value)
            out.append(NicBinding(nic, (g,) if g is not None else (), how if g is not None else "unknown-group",
                                  named, host))
        elif len(groups) == 1:
            out.append(NicBinding(nic, (groups[0],), "only-group", None, host))
        else:
            out.append(NicBinding(nic, tuple(groups), "all-groups", None, host))
    return out


def _same_nic(a: "NicQos", b: "NicQos") -> bool:
    """Whether two NicQos can describe the same NIC port: ports agree (or one is every port) and,
    where both name an interface or both name a device, the names agree."""
    if a.port is not None and b.port is not None and a.port != b.port:
        return False
    for attr in ("interface", "device"):
        x, y = getattr(a, attr), getattr(b, attr)
        if x is not None and y is not None and x.value != y.value:
            return False
    return True


def layer_conflicts(nics: list["NicQos"]) -> list[tuple[str, "NicValue", "NicValue"]]:
    """(setting name, firmware value, runtime value) for each parameter one NicQos sets in firmware
    and another (or the same) sets at runtime to a different value, for NicQos that can be the same
    NIC port (:func:`_same_nic`). Names as :meth:`NicQos.settings` gives them."""
    out: list[tuple[str, Any, Any]] = []
    seen: set[tuple[int, int]] = set()
    for a in nics:
        fw = {name: s.firmware for name, s in a.settings() if s.firmware is not None}
        if not fw:
            continue
        for b in nics:
            if not _same_nic(a, b):
                continue
            for name, s in b.settings():
                f = fw.get(name)
                r = s.runtime
                if f is None or r is None or f.value == r.value or (id(f), id(r)) in seen:
                    continue
                seen.add((id(f), id(r)))
                out.append((name, f, r))
    return out
