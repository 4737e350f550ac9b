"""Generate the JSON Schemas in ``schemas/`` from the pydantic models (``python -m netlint.schemas_gen``).

The schemas are committed so editors can use them; a test regenerates them and fails on drift.
Each entry maps a schema file name to a zero-argument function returning the model class.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"


def _inventory():
    from netlint.models.inventory import Inventory

    return Inventory


def _switch():
    from netlint.models.switch import NativeSwitch

    return NativeSwitch


def _nic():
    from netlint.models.nic_native import NativeNic

    return NativeNic


def _policy():
    from netlint.policy.schema import policy_schema_model

    return policy_schema_model()


def _workspace():
    from netlint.policy.schema import workspace_schema

    return workspace_schema  # a function returning the schema itself (not a pydantic model)


SCHEMAS: dict[str, Callable[[], type]] = {
    "inventory.schema.json": _inventory,
    "switch.schema.json": _switch,
    "nic.schema.json": _nic,
    "policy.schema.json": _policy,
    "workspace.schema.json": _workspace,
}


def render(name: str) -> str:
    model = SCHEMAS[name]()
    if not hasattr(model, "model_json_schema"):
        return json.dumps(model(), indent=2) + "\n"
    schema = model.model_json_schema(mode="validation")
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema",
              "$id": f"https://netlint.dev/schemas/{name}", **schema}
    return json.dumps(schema, indent=2, sort_keys=False) + "\n"


def main() -> None:
    SCHEMA_DIR.mkdir(exist_ok=True)
    for name in SCHEMAS:
        (SCHEMA_DIR / name).write_text(render(name), encoding="utf-8")
        print(f"wrote schemas/{name}")


if __name__ == "__main__":
    main()
