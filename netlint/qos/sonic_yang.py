"""SONiC YANG-JSON instance data (and sonic-yang-models test-vector files) → CONFIG_DB shape,
keeping every leaf's span, so one builder reads both forms."""

from __future__ import annotations

from typing import Any

from netlint.located import MapNode, Scalar, SeqNode


def _is_module_key(k: Any) -> bool:
    return isinstance(k, str) and k.startswith("sonic-") and ":" in k


def _yang_documents(root: MapNode) -> list[tuple[str, MapNode, tuple]]:
    """(test name or "", YANG-JSON document, path) for a single document or a test-vector file."""
    if root and all(_is_module_key(k) for k in root):
        return [("", root, ())]
    out = []
    for name, doc in root.items():
        if isinstance(doc, MapNode) and doc and all(_is_module_key(k) for k in doc):
            out.append((str(name), doc, (name,)))
    return out


# YANG list -> CONFIG_DB key fields (in key order)
_YANG_KEYS = {"QUEUE_LIST": ("ifname", "qindex"), "VOQ_QUEUE_LIST": ("hostname", "asic_name", "ifname", "qindex"),
              "PORT_QOS_MAP_LIST": ("ifname",), "PFC_WD_LIST": ("ifname",), "PORT_LIST": ("name",),
              "BUFFER_PG_LIST": ("port", "pg_num"), "BUFFER_QUEUE_LIST": ("port", "qindex"),
              "BUFFER_PORT_INGRESS_PROFILE_LIST_LIST": ("port",), "BUFFER_PORT_EGRESS_PROFILE_LIST_LIST": ("port",)}


def yang_to_configdb(doc: MapNode) -> MapNode:
    """YANG-JSON instance data → a CONFIG_DB-shaped MapNode whose leaves are the original Scalars."""
    db = MapNode(doc.span)
    for module in doc.values():
        if not isinstance(module, MapNode):
            continue
        for tkey, container in module.items():
            table = str(tkey).split(":", 1)[-1]
            if not isinstance(container, MapNode):
                continue
            out = db.get(table)
            if not isinstance(out, MapNode):
                out = MapNode(container.span)
                db[table] = out
                db.keys_at[table] = module.keys_at.get(tkey) or Scalar(table, container.span)
            for lkey, items in container.items():
                lname = str(lkey).split(":", 1)[-1]
                if isinstance(items, SeqNode):
                    for item in items:
                        if isinstance(item, MapNode):
                            _yang_entry(table, lname, item, out)
                elif isinstance(items, MapNode):  # a container entry such as DEVICE_METADATA/localhost
                    out[lname] = items
                    out.keys_at[lname] = container.keys_at.get(lkey) or Scalar(lname, items.span)
    return db


def _yang_entry(table: str, lname: str, item: MapNode, out: MapNode) -> None:
    keys = _YANG_KEYS.get(lname)
    if keys is None:
        keys = ("name",) if "name" in item else ("ifname",) if "ifname" in item else ()
    parts = [item.get(k) for k in keys]
    if not parts or any(not isinstance(p, Scalar) for p in parts):
        return
    key = "|".join(str(p.value) for p in parts)
    entry = MapNode(item.span)
    for k, v in item.items():
        if k in keys:
            continue
        if isinstance(v, SeqNode) and k == table:  # a map's pairs: [{"dscp": "1", "tc": "1"}, ...]
            pairs = MapNode(v.span)
            for pair in v:
                if isinstance(pair, MapNode) and len(pair) >= 2:
                    (fk, fv), (_, tv) = list(pair.items())[:2]
                    if isinstance(fv, Scalar):
                        pairs[str(fv.value)] = tv
                        pairs.keys_at[str(fv.value)] = fv
            for pk, pv in pairs.items():
                entry[pk] = pv
                entry.keys_at[pk] = pairs.keys_at[pk]
            continue
        entry[k] = v
        entry.keys_at[k] = item.keys_at.get(k) or Scalar(k, getattr(v, "span", item.span))
    out[key] = entry
    out.keys_at[key] = parts[0]


# ------------------------------------------------------------------------------------------------
