"""Generate the JSON Schemas from the models (``python -m netlint.schemas_gen``).

They are written twice: to ``schemas/`` at the top of the repository (where editors and the docs
point in a checkout) and to ``netlint/schemas/``, package data that every wheel ships
(``netlint schema NAME`` prints one, ``--path`` gives its installed file). Tests regenerate them and
fail on drift, and fail when the two folders differ. Each entry of :data:`SCHEMAS` maps a file name
to a zero-argument function returning the model class; :data:`COPIED` are written by hand in
``schemas/`` and only copied.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"
PACKAGE_DIR = Path(__file__).resolve().parent / "schemas"
COPIED = ("advisories.schema.json",)  # netlint/data/advisories.yaml's schema, maintained by hand


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


def _config():
    from netlint.config import Settings

    return Settings


def _workspace():
    from netlint.policy.schema import workspace_schema

    return workspace_schema  # a function returning the schema itself (not a pydantic model)


SCHEMAS: dict[str, Callable[[], type]] = {
    "inventory.schema.json": _inventory,
    "switch.schema.json": _switch,
    "nic.schema.json": _nic,
    "policy.schema.json": _policy,
    "workspace.schema.json": _workspace,
    "config.schema.json": _config,
}
# What a generated schema says about itself, where the model's own title would not do.
HEADINGS = {
    "config.schema.json": ("netlint configuration",
                           "netlint.yaml / .netlint.yaml, or the [tool.netlint] table of pyproject.toml"),
}


def render(name: str) -> str:
    model = SCHEMAS[name]()
    if not hasattr(model, "model_json_schema"):
        return json.dumps(model(), indent=2) + "\n"
    schema = model.model_json_schema(mode="validation")
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema",
              "$id": f"https://netlint.dev/schemas/{name}", **schema}
    if name in HEADINGS:
        schema["title"], schema["description"] = HEADINGS[name]
    return json.dumps(schema, indent=2, sort_keys=False) + "\n"


def names() -> list[str]:
    """Every schema netlint ships, by file name."""
    return sorted([*SCHEMAS, *COPIED])


def main() -> None:
    SCHEMA_DIR.mkdir(exist_ok=True)
    PACKAGE_DIR.mkdir(exist_ok=True)
    for name in SCHEMAS:
        text = render(name)
        for folder in (SCHEMA_DIR, PACKAGE_DIR):
            (folder / name).write_text(text, encoding="utf-8")
        print(f"wrote schemas/{name} and netlint/schemas/{name}")
    for name in COPIED:
        (PACKAGE_DIR / name).write_bytes((SCHEMA_DIR / name).read_bytes())
        print(f"copied schemas/{name} to netlint/schemas/{name}")


if __name__ == "__main__":
    main()
