"""One switch from several SONiC CONFIG_DB files, merged the way SONiC merges them, before rules run.

Which files make one switch:

* the inventory says so: ``switches[].config`` is a list (``[qos.json, buffers.json]``, optionally with
  the SKU's ``pg_profile_lookup.ini``, which is bound to the switch rather than merged);
* without an inventory entry for either file, a folder holding exactly ``buffers.json`` and
  ``qos.json``: those are the names of the two templates every SONiC SKU folder renders together for
  one switch (``config qos reload`` renders ``buffers.json.j2`` and ``qos.json.j2`` and loads the two
  results with one ``sonic-cfggen -j <buffers> -j <qos> --write-to-db``: sonic-net/sonic-utilities@691b1bbc
  ``config/main.py`` L3817-3849);
* likewise ``qos-<sku>.json`` with ``buffers-<sku>.json`` (or ``buffer-<sku>.json``: sonic-buildimage's
  rendered samples use both spellings, sonic-net/sonic-buildimage@086b03bd
  ``src/sonic-config-engine/tests/sample_output/py3/``) when the ``<sku>`` parts are the same string
  and the folder holds exactly one of each for that SKU: a folder of renders for several SKUs holds one
  switch per SKU, and anything ambiguous stays unpaired.

How: tables, entries and fields are merged in file order and a later file's field wins, as
``sonic-cfggen``'s ``deep_update`` does for each ``-j`` file (sonic-net/sonic-buildimage@086b03bd
``src/sonic-config-engine/sonic-cfggen`` L251-262, L284-289); a folder pair is merged buffers first,
then qos, as ``config qos reload`` passes them. A field set in two files to different values is an
NL009 warning at the value that loses (the same value twice is fine). The merged tree keeps every
node's span, so findings point into the file that holds the value, and the per-file switches and
their loader findings (a reference the other file resolves) are replaced by the merged switch's.
Files of other switch formats cannot be merged with CONFIG_DB and stay switches of their own
(NL005 at the list entry).
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from netlint.findings import Finding, Related, Severity
from netlint.located import MapNode, Scalar, plain

if TYPE_CHECKING:
    from netlint.models.switch import SwitchQos
    from netlint.workspace import Workspace

PAIR = ("buffers.json", "qos.json")  # merge order of a folder pair
SKU_PAIR = re.compile(r"(qos|buffers?)-(.+)\.json\Z")   # qos-<sku>.json, buffers-<sku>.json


def merge_switches(ws: "Workspace", results: list[Any], findings: list[Finding]) -> None:
    from netlint.models.switch import SwitchQos

    by_file: dict[str, SwitchQos] = {s.file: s for s in ws.switches if isinstance(s, SwitchQos)}
    named = _inventory_groups(ws, by_file, findings)
    listed = {rel for _, members in named for rel, _ in members}
    for name, members in named + _folder_groups(ws, by_file, listed):
        rels = [rel for rel, _ in members if by_file.get(rel) is not None and by_file[rel].format == "sonic"]
        if len(rels) >= 2:
            _merge(ws, findings, name, rels, by_file)


def _inventory_groups(ws: "Workspace", by_file: dict, findings: list[Finding]) -> list[tuple[str, list]]:
    from netlint.qos import inventory_rel
    from netlint.qos.pg_lookup import tables

    inv = ws.inventory
    if inv is None or ws.inventory_file is None:
        return []
    base = (ws.root / ws.inventory_file).parent
    table_files = {t.file for t in tables(ws)}
    listed_tables: dict[str, str] = ws.cache.setdefault("qos.listed_tables", {})
    groups = []
    for ref in getattr(inv, "switches", ()):
        members = [(inventory_rel(ws, base, c.value), c) for c in ref.configs]
        if len(members) < 2:
            continue
        listed = [(rel, entry) for rel, entry in members if rel in table_files]
        table = listed[0][0] if listed else None
        for rel, entry in listed[1:]:
            findings.append(Finding(
                "NL005", f"switches[{ref.name.value}].config: '{entry.value}' is a second pg_profile_lookup.ini; "
                         f"buffermgrd reads one table per switch, so netlint uses the first in the list",
                entry.span, key=f"second-table:{ref.name.value}:{entry.value}"))
        for rel, entry in members:
            sw = by_file.get(rel)
            if table is not None and rel != table and rel not in table_files:
                listed_tables[rel] = table
            if sw is not None and sw.format != "sonic":
                findings.append(Finding(
                    "NL005", f"switches[{ref.name.value}].config: '{entry.value}' is {sw.format}; only SONiC "
                             f"CONFIG_DB files can be merged into one switch, so it is checked as a switch of "
                             f"its own", entry.span, key=f"merge-format:{ref.name.value}:{entry.value}"))
        groups.append((ref.name.value, members))
    return groups


def _folder_groups(ws: "Workspace", by_file: dict, listed: set[str]) -> list[tuple[str, list]]:
    folders: dict[str, dict[str, str]] = {}
    skus: dict[tuple[str, str], dict[str, list[str]]] = {}   # (folder, sku) -> side -> files
    for rel in by_file:
        folder, _, base = rel.rpartition("/")
        if base in PAIR:
            folders.setdefault(folder, {})[base] = rel
        m = SKU_PAIR.match(base)
        if m:
            side = PAIR[1] if m.group(1) == "qos" else PAIR[0]
            skus.setdefault((folder, m.group(2)), {}).setdefault(side, []).append(rel)
    named = {nf_rel for nf_rel in _named_rels(ws)} | listed
    out = []
    for folder, files in sorted(folders.items()):
        if len(files) == 2 and not (set(files.values()) & named):
            name = os.path.basename(folder) or "switch"
            out.append((name, [(files[b], None) for b in PAIR]))
    for (folder, sku), sides in sorted(skus.items()):
        if all(len(sides.get(b, ())) == 1 for b in PAIR) and not ({sides[b][0] for b in PAIR} & named):
            out.append((sku, [(sides[b][0], None) for b in PAIR]))
    return out


def _named_rels(ws: "Workspace") -> set[str]:
    from netlint.discovery import display_path
    from netlint.named_files import named_files

    return {display_path(nf.path, ws.root) for nf in named_files(ws)}


def _merge(ws: "Workspace", findings: list[Finding], name: str, rels: list[str], by_file: dict) -> None:
    from netlint.loaders.base import parsed_json
    from netlint.loaders.sonic import FLAT_TABLES
    from netlint.qos.sonic_flat import flat_tables, unflatten
    from netlint.qos.sonic_tables import SonicBuilder

    docs = []
    for rel in rels:
        src = ws.sources.get(rel)
        root, _ = parsed_json(src) if src is not None else (None, [])
        if not isinstance(root, MapNode):
            return
        db, flat = unflatten(root) if flat_tables(root, FLAT_TABLES) else (root, frozenset())
        docs.append((rel, db, flat))
        src.drop_parsed()
    merged, flat, conflicts = merge_trees(docs)
    old = [by_file[rel] for rel in rels]
    ws.switches[:] = [s for s in ws.switches if not any(s is o for o in old)]
    findings[:] = [f for f in findings if not (f.extra.get("switch_build") and f.file in rels)]
    complete = "DEVICE_METADATA" in merged and "PORT" in merged
    builder = SonicBuilder(rels[0], merged, "sonic", complete=complete, stem=name, flat=flat)
    sw: SwitchQos | None = None
    for item in builder.build():
        if isinstance(item, Finding):
            findings.append(item)
        else:
            sw = item
    if sw is None:
        return
    sw.name, sw.files = name, tuple(rels)
    ws.switches.append(sw)
    findings.extend(conflicts)


def file_notes(ws: "Workspace") -> dict[str, str]:
    """``--show-files`` notes: the switch a file was merged into, the switches a SKU table serves."""
    from netlint.qos import switches
    from netlint.qos.pg_lookup import table_for

    notes: dict[str, str] = {}
    served: dict[str, list[str]] = {}
    for sw in switches(ws):
        for rel in sw.files:
            notes[rel] = f" (merged into switch '{sw.name}' with {', '.join(f for f in sw.files if f != rel)})"
        table = table_for(ws, sw)
        if table is not None:
            served.setdefault(table.file, []).append(sw.name)
    for file, names in served.items():
        notes[file] = f" (lossless profiles of switch {', '.join(repr(n) for n in names)})"
    return notes


def merge_trees(docs: list[tuple[str, MapNode, frozenset]]) -> tuple[MapNode, frozenset, list[Finding]]:
    """``(file, CONFIG_DB tree, flat entries)`` in order → one tree (a later file's field wins), the
    entries written flat in the file whose entry the merged tree keeps, and NL009 for each field set
    to two different values."""
    merged = MapNode(docs[0][1].span)
    flat: set[tuple[str, str]] = set()
    conflicts: list[Finding] = []
    for rel, db, doc_flat in docs:
        for table, entries in db.items():
            if not isinstance(entries, MapNode):
                merged[table] = entries
                merged.keys_at[table] = db.keys_at.get(table) or Scalar(table, db.span)
                continue
            mt = merged.get(table)
            if not isinstance(mt, MapNode):
                mt = merged[table] = MapNode(entries.span)
                merged.keys_at[table] = db.keys_at.get(table) or Scalar(table, entries.span)
            for key, entry in entries.items():
                cur = mt.get(key)
                if isinstance(cur, MapNode) and isinstance(entry, MapNode):
                    entry = _merge_entry(f"{table}|{key}", cur, entry, conflicts)
                elif cur is not None and plain(cur) != plain(entry):
                    conflicts.append(_conflict(f"{table}|{key}", cur, entry))
                mt[key] = entry
                mt.keys_at[key] = entries.keys_at.get(key) or Scalar(key, getattr(entry, "span", entries.span))
                if (table, key) in doc_flat:
                    flat.add((table, key))
                else:
                    flat.discard((table, key))
    return merged, frozenset(flat), conflicts


def _merge_entry(where: str, cur: MapNode, new: MapNode, conflicts: list[Finding]) -> MapNode:
    out = MapNode(new.span)
    for src in (cur, new):
        for f, v in src.items():
            old = out.get(f)
            if src is new and old is not None and plain(old) != plain(v):
                conflicts.append(_conflict(f"{where}.{f}", old, v))
            out[f] = v
            out.keys_at[f] = src.keys_at.get(f) or Scalar(f, getattr(v, "span", src.span))
    return out


def _conflict(where: str, loser: Any, winner: Any) -> Finding:
    lspan, wspan = getattr(loser, "span", None), getattr(winner, "span", None)
    shown = plain(winner)
    return Finding("NL009", f"{where} is also set in {wspan.file} ({shown!r}), which is merged after this file "
                            f"into the same switch, so this value is not used",
                   lspan, Severity.WARNING, related=(Related(wspan, "the value the switch gets"),),
                   key=f"merge:{where}")
