"""CONFIG_DB in its flat Redis-key form → the nested ``{"TABLE": {"key": {...}}}`` shape, every node
keeping its span, so one builder reads both.

The flat form is how CONFIG_DB lives in Redis and how sonic-utilities' test fixtures and
``sonic-db-dump`` write it: one top-level key per entry, ``"TABLE|key"`` or ``"TABLE|k1|k2"``, whose
value holds the entry's fields (sonic-net/sonic-utilities@691b1bbc ``tests/mock_tables/dbconnector.py``
L141-153: each top-level key is a Redis hash, fields set one by one). Two Redis details are undone:
a list field is stored under its name with ``@`` appended (``"ports@": "Ethernet0,Ethernet4"``) and
an entry without fields as ``{"NULL": "NULL"}`` (sonic-net/sonic-swss-common@85a39d80
``common/configdb.h`` L148-165, ``raw_to_typed``), and an entry may be in redis-dump form
(``{"expireat", "ttl", "type": "hash", "value": {fields}}``, unwrapped by the same loader, L145-150).
"""

from __future__ import annotations

from typing import Any

from netlint.located import MapNode, Scalar

SEP = "|"
_DUMP_KEYS = frozenset({"expireat", "ttl", "type", "value"})


def flat_tables(root: MapNode, known: frozenset[str] | set[str]) -> bool:
    """True when some top-level key is ``TABLE|key`` with ``TABLE`` one of ``known``."""
    for k in root:
        if isinstance(k, str) and SEP in k and k.split(SEP, 1)[0] in known:
            return True
    return False


def unflatten(root: MapNode) -> tuple[MapNode, frozenset[tuple[str, str]]]:
    """The nested view of a flat (or mixed) CONFIG_DB document and the ``(table, key)`` entries that
    were written flat (their edit paths are ``("TABLE|key", field)``, not ``("TABLE", "key", field)``).

    Leaves are the document's own Scalars; an entry's key Scalar carries the span of the whole flat
    key token, so a finding about the entry points at ``"QUEUE|Ethernet0|3"``."""
    db = MapNode(root.span)
    flat: set[tuple[str, str]] = set()
    for k, v in root.items():
        ks = str(k)
        kscalar = root.keys_at.get(k) or Scalar(ks, getattr(v, "span", root.span))
        if SEP not in ks:
            if isinstance(v, MapNode) and isinstance(db.get(ks), MapNode):
                _add_fields(db[ks], v)  # a nested table next to flat entries of the same table
            else:
                db[ks] = v
                db.keys_at[ks] = kscalar
            continue
        table, key = ks.split(SEP, 1)
        t = db.get(table)
        if not isinstance(t, MapNode):
            t = MapNode(root.span)  # a flat table has no node of its own: the document stands for it
            db[table] = t
            db.keys_at[table] = Scalar(table, kscalar.span, kscalar.raw, kscalar.quoted)
        entry = _fields(v)
        if isinstance(t.get(key), MapNode) and isinstance(entry, MapNode):
            _add_fields(t[key], entry)
        else:
            t[key] = entry
            t.keys_at[key] = Scalar(key, kscalar.span, kscalar.raw, kscalar.quoted)
        flat.add((table, key))
    return db, frozenset(flat)


def _fields(v: Any) -> Any:
    """An entry's fields: redis-dump form unwrapped, ``name@`` list fields under ``name``."""
    if isinstance(v, MapNode) and _DUMP_KEYS <= set(v):
        typ, inner = v.get("type"), v.get("value")
        if isinstance(typ, Scalar) and typ.value == "hash" and isinstance(inner, MapNode):
            v = inner
    if not isinstance(v, MapNode) or not any(isinstance(f, str) and (f.endswith("@") or f == "NULL") for f in v):
        return v
    out = MapNode(v.span)
    for f, val in v.items():
        if f == "NULL":
            continue
        name = f[:-1] if isinstance(f, str) and f.endswith("@") else f
        out[name] = val
        out.keys_at[name] = v.keys_at.get(f) or Scalar(name, getattr(val, "span", v.span))
    return out


def _add_fields(dst: MapNode, src: MapNode) -> None:
    for f, val in src.items():
        dst[f] = val
        dst.keys_at[f] = src.keys_at.get(f) or Scalar(f, getattr(val, "span", src.span))


def flat_path(path: tuple, flat: frozenset[tuple[str, str]], base: int = 0) -> tuple:
    """``("T", "k", *rest)`` → ``("T|k", *rest)`` when that entry was written flat."""
    if len(path) >= base + 2 and (path[base], path[base + 1]) in flat:
        return path[:base] + (f"{path[base]}{SEP}{path[base + 1]}",) + path[base + 2:]
    return path


def flatten_paths(sw: Any, flat: frozenset[tuple[str, str]], base: int = 0) -> None:
    """Rewrite the edit paths of a built switch for the entries written flat (structural fixes then
    address the document as it is written)."""
    if not flat:
        return
    for group in (sw.wred_profiles, sw.schedulers, sw.buffer_pools, sw.buffer_profiles, *sw.maps.values()):
        for obj in group.values():
            obj.path = flat_path(obj.path, flat, base)
    for p in sw.ports.values():
        p.path = flat_path(p.path, flat, base)
        if p.qos_path is not None:
            p.qos_path = flat_path(p.qos_path, flat, base)
        if p.pfc_path is not None:
            p.pfc_path = flat_path(p.pfc_path, flat, base)
        for q in p.queues.values():
            q.path = flat_path(q.path, flat, base)
        for g in p.pgs.values():
            g.path = flat_path(g.path, flat, base)
        if p.watchdog is not None:
            p.watchdog.path = flat_path(p.watchdog.path, flat, base)
