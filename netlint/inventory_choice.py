"""Which inventory a run applies when it reads several, or one away from the project root.

The inventory the configuration names (``inventory:``, ``--inventory``) or ``inventory.yaml`` at the
project root applies to every file. Otherwise an inventory found by walking describes the cluster of
its own folder: it applies when every other file checked lies in that folder or below it (the deepest
such inventory wins), and is not applied when some file lies elsewhere — a sibling cluster's folder
is not described by it. An inventory not applied says so where it is (NL012, info), rather than one
being picked by walk order.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from netlint.findings import Finding, Severity
from netlint.located import Span

if TYPE_CHECKING:
    from netlint.loading import FileResult
    from netlint.workspace import Workspace


def choose(ws: "Workspace", results: list["FileResult"], named: str | None) -> list[Finding]:
    """Set ``ws.inventory`` to the one that applies; ``named`` is the configured or root inventory's path."""
    found = ws.inventories
    if not found:
        return []
    if named is not None:
        for file, model in found:
            if file == named:
                ws.inventory, ws.inventory_file = model, file
                return [_not_applied(f, f"the project's inventory is {named}") for f, _ in found if f != named]
    files = {file for file, _ in found}
    others = [r.rel for r in results if r.claimed and r.rel not in files]
    fits = [(file, model) for file, model in found if all(_below(o, _folder(file)) for o in others)]
    if fits:
        file, model = max(fits, key=lambda fm: (_folder(fm[0]).count("/") + bool(_folder(fm[0])), fm[0]))
        ws.inventory, ws.inventory_file = model, file
        return [_not_applied(f, f"{file} describes the files checked") for f, _ in found if f != file]
    ws.inventory, ws.inventory_file = None, None
    out = []
    for file, _ in found:
        outside = next(o for o in others if not _below(o, _folder(file)))
        out.append(_not_applied(file, f"it describes the cluster of {_folder(file) or '.'}/, and {outside} is "
                                      f"checked too"))
    return out


def _not_applied(file: str, why: str) -> Finding:
    return Finding("NL012", f"inventory not applied: {why}; name the inventory to use with --inventory or "
                            f"`inventory:` in netlint.yaml", Span(file, 1, 1, 1, 1, 0, 0), Severity.INFO,
                   key="inventory-not-applied")


def _folder(file: str) -> str:
    return posixpath.dirname(file)


def _below(file: str, folder: str) -> bool:
    return not folder or file.startswith(folder + "/")

