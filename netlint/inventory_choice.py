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
from typing import TYPE_CHECKING, Any, Callable

from netlint.findings import Finding, Severity
from netlint.located import Span

if TYPE_CHECKING:
    from netlint.discovery import Candidate
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


def groups(cands: list["Candidate"]) -> list[tuple[str | None, list["Candidate"]]] | None:
    """(inventory path or None, the candidates it applies to) per cluster folder, or None when the walk
    found no inventory by name. Each candidate goes with the deepest inventory whose folder holds it."""
    from netlint.loaders.inventory import NAMES

    invs = sorted((c.rel for c in cands if posixpath.basename(c.rel) in NAMES),
                  key=lambda r: (-_folder(r).count("/") - bool(_folder(r)), r))
    if not invs:
        return None
    out: dict[str | None, list] = {inv: [] for inv in invs}
    out[None] = []
    for c in cands:
        if posixpath.basename(c.rel) in NAMES:
            out[c.rel].append(c)
            continue
        home = next((inv for inv in invs if _below(c.rel, _folder(inv))), None)
        out[home].append(c)
    return [(inv, members) for inv, members in out.items() if members]


def by_inventory(cands: list["Candidate"], analyse: Callable[[list, str | None], tuple]) -> tuple | None:
    """Run ``analyse(candidates, inventory)`` once per cluster folder (:func:`groups`) and join the results
    into one (results, workspace, findings); None when there is one group or none."""
    parts = groups(cands)
    if parts is None or len(parts) < 2:
        return None
    results: list[Any] = []
    findings: list[Finding] = []
    ws = None
    for inv, members in parts:
        got_results, got_ws, got_findings = analyse(members, inv)
        results += got_results
        findings += got_findings
        ws = got_ws if ws is None else _merge(ws, got_ws)
        if inv is not None and all(c.rel == inv for c in members):  # `inv/inventory.yaml` beside the logs
            findings.append(_not_applied(inv, f"no other file checked lies in its folder, "
                                              f"{_folder(inv) or '.'}/, which it describes"))
    return results, ws, findings


def _merge(into: "Workspace", other: "Workspace") -> "Workspace":
    """One workspace for the report (sources, envs, jobs, …); the join and the rules already ran per part."""
    for name in ("switches", "nics", "nccl_envs", "jobs", "templates", "switch_tables", "pins", "runs",
                 "inventories"):
        getattr(into, name).extend(getattr(other, name))
    into.sources.update(other.sources)
    if into.targets is not None:
        into.targets = into.targets | other.targets if other.targets is not None else None
    if into.inventory is None:
        into.inventory, into.inventory_file = other.inventory, other.inventory_file
    return into
