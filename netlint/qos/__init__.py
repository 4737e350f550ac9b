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


class SwitchTexts(dict):
    """file → text for a switch read from several files: fix helpers (:mod:`netlint.qos.edits`) take
    the text of the file each token is in."""


def switch_text(ws: "Workspace", sw: "SwitchQos") -> "str | SwitchTexts | None":
    """What QOS rules pass to the edit helpers: the switch file's text, or each file's text when the
    switch was merged from several files."""
    files = getattr(sw, "files", ()) or ()
    if len(files) <= 1:
        return ws.text(sw.file)
    return SwitchTexts({f: ws.text(f) for f in files})


def _norm(path: str) -> str:
    return os.path.normpath(path).replace(os.sep, "/")


def inventory_rel(ws: "Workspace", base, value: str) -> str:
    """The display path of a file the inventory names (``value`` relative to the inventory's folder)."""
    target = base / value
    try:
        rel = os.path.relpath(target.resolve(), ws.root.resolve())
    except (ValueError, OSError, RuntimeError):  # another drive; a symbolic link loop (NL001 says it)
        rel = str(target)
    return _norm(rel)


def _bind_names(ws: "Workspace") -> list["SwitchQos"]:
    from netlint.models.switch import SwitchQos

    sws = [s for s in ws.switches if isinstance(s, SwitchQos)]
    inv = ws.inventory
    if inv is None or ws.inventory_file is None or not getattr(inv, "switches", None):
        return sws
    base = (ws.root / ws.inventory_file).parent
    by_file: dict[str, str] = {}
    for ref in inv.switches:
        for config in ref.configs:
            by_file[inventory_rel(ws, base, config.value)] = ref.name.value
    for sw in sws:
        name = by_file.get(_norm(sw.file))
        if name is not None and ":" not in sw.name:
            sw.name = name
    return sws
