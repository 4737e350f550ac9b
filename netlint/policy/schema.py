"""JSON Schemas of the policy file format and of the workspace view policies select from.

The workspace schema is generated from the models themselves (pydantic models through pydantic,
dataclasses through their type hints), with the same field filtering as :mod:`netlint.policy.view`,
so it cannot drift from what JSONPath sees.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from netlint.policy.view import hidden, kind_of


def policy_schema_model():
    from netlint.policy.model import PolicyFile

    return PolicyFile


class _Gen:
    def __init__(self) -> None:
        self.defs: dict[str, Any] = {}

    def of(self, tp: Any) -> dict:
        from netlint.located import Scalar

        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if tp is Scalar or tp is Any:
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
            if hasattr(cls, "model_fields"):
                fields = {(f.alias or n): (n, f.annotation) for n, f in cls.model_fields.items()}
            else:
                try:
                    hints = typing.get_type_hints(cls)
                except Exception:
                    hints = {}
                fields = {f.name: (f.name, hints.get(f.name, Any)) for f in dataclasses.fields(cls)}
            props = {key: self.of(tp) for key, (attr, tp) in fields.items() if not hidden(attr)}
            doc = (cls.__doc__ or "").strip().split("\n")[0]
            self.defs[name] = {"type": "object", "title": name, "properties": props,
                               **({"description": doc} if doc and not doc.startswith(name + "(") else {})}
        return {"$ref": f"#/$defs/{name}"}


def collection_models() -> dict[str, tuple]:
    """The model classes each workspace collection holds (``ws.jobs`` mixes three)."""
    from netlint.models.job import DsConfig, Hostfile, TrainingJob
    from netlint.models.nccl import NcclEnv
    from netlint.models.switch import SwitchQos

    return {"switches": (SwitchQos,), "nics": (), "nccl_envs": (NcclEnv,),
            "jobs": (TrainingJob, DsConfig, Hostfile)}


def _item(gen: _Gen, cls: type) -> dict:
    """A collection item: the model plus the ``kind`` the view adds (View.build)."""
    ref = gen.dataclass(cls)
    props = gen.defs[cls.__name__].get("properties", {})
    if "kind" in props:
        return ref
    return {"allOf": [ref, {"properties": {"kind": {"const": kind_of(cls)}}, "required": ["kind"]}]}


def workspace_schema() -> dict:
    from netlint.models.inventory import Inventory

    gen = _Gen()
    inventory = Inventory.model_json_schema(ref_template="#/$defs/{model}")
    gen.defs.update(inventory.pop("$defs", {}))
    gen.defs["Inventory"] = inventory
    props: dict[str, Any] = {"inventory": {"anyOf": [{"$ref": "#/$defs/Inventory"}, {"type": "null"}]}}
    for name, classes in collection_models().items():
        items = [_item(gen, cls) for cls in classes]
        props[name] = {"type": "array", "items": items[0] if len(items) == 1 else {"anyOf": items} if items else {}}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://netlint.dev/schemas/workspace.schema.json",
        "title": "netlint workspace view",
        "description": "What policy JSONPaths select from: `$.inventory`, `$.switches[*]`, `$.nccl_envs[*]`, "
                       "`$.jobs[*]`. Each collection item has `kind`, the model it comes from.",
        "type": "object",
        "properties": props,
        "$defs": dict(sorted(gen.defs.items())),
    }
