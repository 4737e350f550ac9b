"""Files the inventory names: where they are, and a located NL007 for each one no loader reads as what
the inventory says it is (nothing named is skipped without a word).

The finding sits at the inventory entry (the ``config:`` or ``nic_configs`` item), since that is the
statement netlint could not honour, and says why: empty, binary, read as something else, or no format
of that kind recognises the content. Parse errors and unreadable files keep their own findings in the
file itself. Files the inventory names as a switch's config (``switches[].config``, one path or a list)
are switch files; ``nic_configs`` items are NIC files.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from netlint.findings import Finding, Severity
from netlint.located import Scalar

if TYPE_CHECKING:
    from netlint.workspace import Workspace

# What each kind of named file is, in words (the formats are the loaders of that kind).
KIND_WORDS = {"switches": "a switch config", "nics": "a NIC config", "jobs": "a job file"}
_READ_ERRORS = ("NL001", "NL002", "NL003", "NL004")


@dataclass(frozen=True)
class NamedFile:
    where: str          # the inventory field, e.g. "switches[leaf01].config"
    ref: Scalar         # the path as written (its span is the inventory entry)
    path: Path          # absolute
    kind: str           # the workspace collection the file should feed


def named_files(ws: "Workspace") -> list[NamedFile]:
    """Every file path the inventory states, with the kind it names the file as."""
    inv = ws.inventory
    if inv is None or ws.inventory_file is None:
        return []
    base = (ws.root / ws.inventory_file).parent
    out = []
    for sw in getattr(inv, "switches", ()):
        for ref in sw.configs:
            out.append(NamedFile(f"switches[{sw.name.value}].config", ref, base / ref.value, "switches"))
    for i, entry in enumerate(getattr(inv, "nic_configs", ())):
        for ref in entry.configs if hasattr(entry, "configs") else [entry]:
            out.append(NamedFile(f"nic_configs[{i}]", ref, base / ref.value, "nics"))
    for ref in getattr(inv, "jobs", None) or ():  # an inventory that lists job files
        if isinstance(ref, Scalar):
            out.append(NamedFile("jobs", ref, base / ref.value, "jobs"))
    return out


def check_named(ws: "Workspace", results: list[Any], findings: list[Finding]) -> None:
    """Add an NL007 at the inventory entry of each named file that no loader read as its kind; the
    file-level NL006/NL007 such a file got when it was loaded for the inventory are replaced by it."""
    from netlint.discovery import display_path

    from netlint.safe_read import walkable

    by_rel = {r.rel: r for r in results}
    replaced: set[str] = set()
    for nf in named_files(ws):
        if walkable(nf.path, ws.root) is None:
            continue  # NL010 or NL001 at the entry already says it is not read
        rel = display_path(nf.path, ws.root)
        res = by_rel.get(rel)
        if res is None:
            continue
        produced = set(getattr(res, "kinds", ())) | {k for k, _ in res.models}
        if nf.kind in produced:
            continue
        if any(f.code in _READ_ERRORS and f.file == rel for f in res.findings):
            continue  # unreadable or does not parse: that finding, in the file, says it
        what = KIND_WORDS.get(nf.kind, nf.kind)
        why = _why(res, what, nf.kind)
        findings.append(Finding("NL007", f"{nf.where} names '{nf.ref.value}' as {what}, but netlint does not "
                                         f"read it: {why}; it is not checked", nf.ref.span, Severity.WARNING,
                                key=f"named:{nf.where}:{nf.ref.value}"))
        replaced.add(rel)
    if replaced:
        findings[:] = [f for f in findings if not (f.file in replaced and f.code in ("NL006", "NL007")
                                                   and f.key in ("empty", "unrecognised"))]


def _why(res: Any, what: str, kind: str) -> str:
    from netlint.registry import loader_names_of_kind

    from netlint.loaders.base import Loader

    formats = getattr(res, "formats", ())
    names = [n for n in formats if not n.endswith(Loader.UNREAD_SUFFIX)]
    if names:
        return f"it is read as {', '.join(names)}, not as {what}"
    if formats:  # recognised only to say it is not read (the NL012 in the file says which format)
        return "it is written in a format netlint recognises but does not read"
    reason = getattr(res, "skipped", "")
    if reason and "not recognised" not in reason:
        return reason
    formats = [n for n in loader_names_of_kind(kind) if not n.endswith(Loader.UNREAD_SUFFIX)]
    if not formats:
        return f"netlint has no reader for {what.split(' ', 1)[1]}s yet"
    return f"no format netlint reads as {what} recognises its content ({', '.join(formats)})"


def shown_files(ws: "Workspace", results: list[Any], walked_out: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``--show-files``: (file, the formats that read it, or ``skipped: why``) for every file read or
    walked past, sorted; a switch file merged with others and a SKU table say which switch."""
    from netlint.qos.sonic_merge import file_notes

    notes = file_notes(ws)
    # what a file's loader reads beside it (a launch's --hostfile): not a format of its own
    through = {}
    for job in ws.jobs:
        hf = getattr(job, "hostfile", None)
        if hf is not None and getattr(hf, "file", None):
            through.setdefault(hf.file, f"deepspeed-hostfile (read through {job.file})")
    rows = [(r.rel, ", ".join(r.formats) + notes.get(r.rel, "") if r.claimed and r.formats
             else through.get(r.rel) or f"skipped: {r.skipped or 'not read'}") for r in results]
    read = {r.rel for r in results}
    rows += [(rel, through.get(rel) or f"skipped: {why}") for rel, why in walked_out if rel not in read]
    return sorted(rows)


def inventory_references(ws: "Workspace", findings: list) -> list:
    """The candidates of the files the inventory names (switch and NIC configs): context to load, or an
    NL010/NL001 at the entry when one is missing or cannot be read."""
    inv = ws.inventory
    if inv is None or ws.inventory_file is None:
        return []
    from netlint.discovery import named
    from netlint.safe_read import Refused, resolve

    out = []
    for nf in named_files(ws):
        ref, path = nf.ref, nf.path
        try:
            resolve(path, ws.root)
        except Refused as exc:
            if exc.missing:
                findings.append(Finding("NL010", f"file '{ref.value}' named by the inventory does not exist",
                                        ref.span, key=f"missing:{ref.value}"))
                continue
            if exc.code != "NL013":  # too large: reported at the file when it is read
                findings.append(Finding("NL001", f"file '{ref.value}' named by the inventory is not read: "
                                        f"{exc.message}", ref.span, key=f"unread:{ref.value}"))
                continue
        out.extend(named(path, ws.root))
    return out
