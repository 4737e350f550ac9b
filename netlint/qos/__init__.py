"""Switch-QoS helpers shared by the QOS rules: inventory name binding, headroom formula, edits."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from netlint.models.switch import SwitchQos
    from netlint.workspace import Workspace


def switches(ws: "Workspace") -> list["SwitchQos"]:
    """``ws.switches`` with each switch named as the inventory names it (done once per run)."""
    return ws.derived("qos.switches", _bind_names)


def _norm(path: str) -> str:
    return os.path.normpath(path).replace(os.sep, "/")


def _bind_names(ws: "Workspace") -> list["SwitchQos"]:
    from netlint.models.switch import SwitchQos

    sws = [s for s in ws.switches if isinstance(s, SwitchQos)]
    inv = ws.inventory
    if inv is None or ws.inventory_file is None or not getattr(inv, "switches", None):
        return sws
    base = (ws.root / ws.inventory_file).parent
    by_file: dict[str, str] = {}
    for ref in inv.switches:
        target = base / ref.config.value
        try:
            rel = os.path.relpath(target.resolve(), ws.root.resolve())
        except ValueError:
            rel = str(target)
        by_file[_norm(rel)] = ref.name.value
    for sw in sws:
        name = by_file.get(_norm(sw.file))
        if name is not None and ":" not in sw.name:
            sw.name = name
    return sws
