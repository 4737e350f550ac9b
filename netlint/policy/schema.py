"""JSON Schemas of the policy file format and of the workspace view policies select from.

The workspace schema is generated from the models themselves (pydantic models through pydantic,
dataclasses through their type hints), with the same field filtering as :mod:`netlint.policy.view`,
so it cannot drift from what JSONPath sees.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from netlint.policy.view import kind_of, model_fields


def policy_schema_model():
    from netlint.policy.model import PolicyFile

    return PolicyFile


SCALAR = "scalar: a number, string or boolean as the file has it"


class _Gen:
    def __init__(self) -> None:
        self.defs: dict[str, Any] = {}

    def of(self, tp: Any) -> dict:
        from netlint.located import Scalar

        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if tp is Scalar:  # a located value whose type the file decides
            return {"$comment": SCALAR}
        if tp is Any:
            return {}
        if tp in (int, float):
            return {"type": "number"}
        if tp is str:
            return {"type": "string"}
        if tp is bool:
            return {"type": "boolean"}
        if tp is type(None):
            return {"type": "null"}
        if origin in (list, tuple, set, frozenset):
            return {"type": "array", "items": self.of(args[0]) if args else {}}
        if origin is dict:
            return {"type": "object", "additionalProperties": self.of(args[1]) if len(args) == 2 else {}}
        if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
            options = [self.of(a) for a in args]
            return {} if {} in options else {"anyOf": options}
        if isinstance(tp, type) and (dataclasses.is_dataclass(tp) or hasattr(tp, "model_fields")):
            return self.dataclass(tp)
        return {}

    def dataclass(self, cls: type) -> dict:
        name = cls.__name__
        if name not in self.defs:
            self.defs[name] = {}
            props = {}
            notes = field_notes(cls) if dataclasses.is_dataclass(cls) else {}
            for key, attr, tp, note in model_fields(cls) or ():
                props[key] = self.of(tp)
                note = note or notes.get(attr, "")
                if note:
                    props[key] = {**props[key], "description": note}
            doc = _summary(cls)
            self.defs[name] = {"type": "object", "title": name, "properties": props,
                               **({"description": doc} if doc and not doc.startswith(name + "(") else {})}
        return {"$ref": f"#/$defs/{name}"}


def field_notes(cls: type) -> dict[str, str]:
    """Trailing ``# comments`` of a dataclass's field lines, its base classes' included (``name`` of a
    ``Named`` map), read with the tokenizer so a line with a quoted default keeps its comment."""
    import inspect
    import io
    import re
    import tokenize

    out: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(klass):
            continue
        try:
            source = inspect.getsource(klass)
        except (OSError, TypeError):
            continue
        lines = source.splitlines()
        try:
            tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
        except (tokenize.TokenError, SyntaxError):
            continue
        for tok in tokens:
            if tok.type != tokenize.COMMENT:
                continue
            m = re.match(r"\s+([A-Za-z_]\w*)\s*:", lines[tok.start[0] - 1])
            if m and tok.start[1] > m.end():
                out[m.group(1)] = tok.string.lstrip("#").strip()
    return out


def _summary(cls: type) -> str:
    """The first sentence of a class docstring, in Markdown (RST roles and double backticks undone)."""
    import re

    para = " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())
    para = re.sub(r":\w+:`", "`", para).replace("``", "`")
    para = re.sub(r"\s*\([^()]*docstring[^()]*\)", "", para)  # "(see the module docstring …)"
    for m in re.finditer(r"\.(\s|$)", para):
        if para[:m.start()].count("`") % 2 == 0:  # a full stop outside inline code
            return para[:m.start() + 1]
    return para


def collection_models() -> dict[str, tuple]:
    """The model classes each workspace collection holds (``ws.jobs`` mixes three)."""
    from netlint.models.job import DsConfig, Hostfile, TrainingJob
    from netlint.models.nccl import NcclEnv
    from netlint.models.nic import NicQos
    from netlint.models.switch import SwitchQos

    return {"switches": (SwitchQos,), "nics": (NicQos,), "nccl_envs": (NcclEnv,),
            "jobs": (TrainingJob, DsConfig, Hostfile)}


def _item(gen: _Gen, cls: type) -> dict:
    """A collection item: the model plus the ``kind`` the view adds (View.build)."""
    ref = gen.dataclass(cls)
    props = gen.defs[cls.__name__].get("properties", {})
    if "kind" in props:
        return ref
    kind = {"const": kind_of(cls), "description": "The model this item comes from (select with `[?@.kind == '...']`)"}
    return {"allOf": [ref, {"properties": {"kind": kind}, "required": ["kind"]}]}


COLLECTIONS = {
    "inventory": "The cluster inventory, or null when the repo has none",
    "switches": "Every switch QoS configuration read (SONiC, native, NVUE, ...), one item per switch",
    "nics": "Every NIC QoS / DCQCN configuration read",
    "nccl_envs": "Every NCCL environment read (env files, scripts, Kubernetes containers, nccl.conf, ...)",
    "jobs": "Training jobs, DeepSpeed configs and hostfiles (`kind` says which)",
}


def workspace_schema() -> dict:
    from netlint.models.inventory import Inventory

    gen = _Gen()
    inventory = Inventory.model_json_schema(ref_template="#/$defs/{model}")
    gen.defs.update(inventory.pop("$defs", {}))
    gen.defs["Inventory"] = inventory
    props: dict[str, Any] = {"inventory": {"anyOf": [{"$ref": "#/$defs/Inventory"}, {"type": "null"}],
                                           "description": COLLECTIONS["inventory"]}}
    for name, classes in collection_models().items():
        items = [_item(gen, cls) for cls in classes]
        props[name] = {"type": "array", "items": items[0] if len(items) == 1 else {"anyOf": items} if items else {},
                       "description": COLLECTIONS[name]}
    _as_viewed(gen.defs)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://netlint.dev/schemas/workspace.schema.json",
        "title": "netlint workspace view",
        "description": "What policy JSONPaths select from: `$.inventory`, `$.switches[*]`, `$.nics[*]`, "
                       "`$.nccl_envs[*]`, `$.jobs[*]`. Each collection item has `kind`, the model it comes from.",
        "type": "object",
        "properties": props,
        "$defs": dict(sorted(gen.defs.items())),
    }


def _as_viewed(defs: dict) -> None:
    """Where the view's shape is narrower than the models' types say: policy examples are checked
    against it (``netlint policy test``), so an example the view can never hold fails."""
    nodes = defs["Inventory"]["properties"]["nodes"]
    ref = nodes["anyOf"][0] if "anyOf" in nodes else nodes.get("items", nodes)
    # a file may write one node shape as a mapping; the inventory (and so the view) always holds a list
    defs["Inventory"]["properties"]["nodes"] = {"type": "array", "items": ref, "description": (
        "The node shapes, always a list (a file may write one shape as a mapping)")}
    # NCCL reads its environment as text (getenv): the value is a string whatever the file wrote
    defs["NcclVar"]["properties"]["value"] = {"anyOf": [{"type": "string"}, {"type": "null"}], "description": (
        "The value NCCL sees, as text (`'106'`, never 106); null when netlint cannot resolve it")}


DOCS_START, DOCS_END = "<!-- fields: generated by python -m netlint.policy.schema -->", "<!-- fields: end -->"


def field_reference(schema: dict | None = None) -> str:
    """Markdown: every model of the workspace view with its fields, types and notes, in the order a
    walk from ``$`` meets them, each under the first JSONPath that reaches it (docs/policy.md)."""
    schema = schema or workspace_schema()
    defs = schema["$defs"]
    order: list[tuple[str, str]] = []
    queue = [(f"$.{name}", node) for name, node in schema["properties"].items()]
    while queue:
        path, node = queue.pop(0)
        for ref, sub in _refs(node, path):
            if ref not in dict(order):
                order.append((ref, sub))
                for key, prop in defs[ref].get("properties", {}).items():
                    queue.append((f"{sub}.{key}", prop))
    out = []
    for name, path in order:
        d = defs[name]
        head = f"**{name}** — `{path}`"
        kinds = [p["const"] for p in _consts(schema, name)]
        if kinds:
            head += f", `kind: {kinds[0]}`"
        if d.get("description"):
            head += f": {d['description'].rstrip('.')}."
        rows = [f"| `{key}` | {_type(prop)} | {(prop.get('description') or '').replace('|', '/')} |"
                for key, prop in d.get("properties", {}).items()]
        out.append("\n".join([head, "", "| field | type | note |", "|---|---|---|", *rows]))
    return "\n\n".join(out) + "\n"


def _refs(node: Any, path: str) -> list[tuple[str, str]]:
    """The definitions a schema node reaches directly, with the JSONPath to their instances."""
    if not isinstance(node, dict):
        return []
    if "$ref" in node:
        return [(node["$ref"].rsplit("/", 1)[1], path)]
    out = []
    for key in ("anyOf", "allOf", "oneOf"):
        for option in node.get(key, []):
            out.extend(_refs(option, path))
    if "items" in node:
        out.extend(_refs(node["items"], f"{path}[*]"))
    if isinstance(node.get("additionalProperties"), dict):
        out.extend(_refs(node["additionalProperties"], f"{path}.*"))
    return out


def _consts(schema: dict, name: str) -> list[dict]:
    found = []
    for prop in schema["properties"].values():
        items = prop.get("items", {})
        for option in items.get("anyOf", [items]):
            parts = option.get("allOf", [])
            if parts and parts[0].get("$ref", "").endswith(f"/{name}"):
                found.append(parts[1]["properties"]["kind"])
    return found


def _type(node: dict) -> str:
    if node.get("$comment") == SCALAR:
        return "scalar"
    if not node or set(node) <= {"description", "title", "default"}:
        return "any"
    if "$ref" in node:
        return node["$ref"].rsplit("/", 1)[1]
    for key in ("anyOf", "oneOf"):
        if key in node:
            options = list(dict.fromkeys(_type(o) for o in node[key]))
            return " or ".join(options)
    if "allOf" in node:
        return _type(node["allOf"][0])
    if "const" in node:
        return f"`{node['const']!r}`"
    if "enum" in node:
        return "one of " + ", ".join(f"`{v}`" for v in node["enum"])
    kind = node.get("type")
    if kind == "array":
        return f"list of {_type(node.get('items', {}))}"
    if kind == "object" and isinstance(node.get("additionalProperties"), dict):
        return f"map of {_type(node['additionalProperties'])}"
    return {"integer": "integer", "number": "number", "string": "string", "boolean": "boolean",
            "null": "null", "object": "object"}.get(kind, "any")


def write_docs(path: Any = None) -> bool:
    """Replace the generated field reference in docs/policy.md; True when it changed."""
    from pathlib import Path

    path = Path(path or Path(__file__).resolve().parent.parent.parent / "docs" / "policy.md")
    text = path.read_text(encoding="utf-8")
    start, end = text.index(DOCS_START) + len(DOCS_START), text.index(DOCS_END)
    new = text[:start] + "\n\n" + field_reference() + "\n" + text[end:]
    if new != text:
        path.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":
    print("docs/policy.md: field reference " + ("updated" if write_docs() else "unchanged"))
