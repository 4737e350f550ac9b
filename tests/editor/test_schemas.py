"""The JSON Schemas netlint ships (issue 19 point 5): in the package, the same as schemas/ at the top of
the repository, a description on every property, printed by ``netlint schema``, and one for the
configuration (netlint.yaml / [tool.netlint])."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from netlint.schemas_gen import COPIED, PACKAGE_DIR, SCHEMA_DIR, SCHEMAS, names

ROOT = Path(__file__).resolve().parents[2]


def test_package_schemas_are_the_repository_schemas():
    in_repo = sorted(p.name for p in SCHEMA_DIR.glob("*.schema.json"))
    in_package = sorted(p.name for p in PACKAGE_DIR.glob("*.schema.json"))
    assert in_package == in_repo == names() == sorted([*SCHEMAS, *COPIED])
    for name in in_repo:
        assert (PACKAGE_DIR / name).read_bytes() == (SCHEMA_DIR / name).read_bytes(), \
            f"netlint/schemas/{name} differs from schemas/{name}: run python -m netlint.schemas_gen"


def undescribed(node, path: str = "$") -> list[str]:
    """Every property (in ``properties`` of any subschema) that has no description."""
    out = []
    if isinstance(node, dict):
        for key, sub in (node.get("properties") or {}).items():
            if not (isinstance(sub, dict) and str(sub.get("description", "")).strip()):
                out.append(f"{path}.properties.{key}")
        for key, sub in node.items():
            out.extend(undescribed(sub, f"{path}.{key}"))
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            out.extend(undescribed(sub, f"{path}[{i}]"))
    return out


@pytest.mark.parametrize("name", names())
def test_every_property_has_a_description(name):
    schema = json.loads((PACKAGE_DIR / name).read_text(encoding="utf-8"))
    assert undescribed(schema) == []


def test_the_walker_finds_a_property_without_description():
    schema = {"properties": {"a": {"description": "x", "properties": {"b": {"type": "string"}}},
                             "c": {"$ref": "#/$defs/C"}},
              "$defs": {"C": {"properties": {"d": {"description": "  "}}}}}
    assert undescribed(schema) == ["$.properties.c", "$.properties.a.properties.b",
                                   "$.$defs.C.properties.d"]


def test_pyproject_ships_the_package_schemas():
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = data["tool"]["setuptools"]["package-data"]["netlint"]
    assert "schemas/*.json" in globs


def netlint(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "netlint", *args], capture_output=True, text=True, timeout=60)


def test_schema_command_prints_one_and_its_path():
    out = netlint("schema", "inventory")
    assert out.returncode == 0
    assert json.loads(out.stdout) == json.loads((SCHEMA_DIR / "inventory.schema.json").read_text())
    path = netlint("schema", "--path", "config.schema.json")
    assert path.returncode == 0
    shown = Path(path.stdout.strip())
    assert shown.name == "config.schema.json" and shown.parent.name == "schemas" and shown.is_file()
    assert shown.read_bytes() == (SCHEMA_DIR / "config.schema.json").read_bytes()
    listing = netlint("schema")
    assert listing.stdout.split() == [n.removesuffix(".schema.json") for n in names()]
    bad = netlint("schema", "inventroy")
    assert bad.returncode == 2 and "unknown schema 'inventroy'" in bad.stderr and bad.stdout == ""


def test_config_schema_accepts_the_example_config_and_names_a_wrong_key():
    import jsonschema
    import yaml

    schema = json.loads((PACKAGE_DIR / "config.schema.json").read_text())
    assert schema["title"] == "netlint configuration"
    validator = jsonschema.Draft202012Validator(schema)
    good = yaml.safe_load((ROOT / "examples" / "netlint.yaml").read_text())
    assert list(validator.iter_errors(good)) == []
    full = {"select": ["QOS"], "ignore": ["NCCL314"], "per-file-ignores": {"lab/*": ["QOS1"]},
            "severity": {"QOS107": "warning"}, "fail-on": "error", "limits": {"max-file-mb": 20}}
    assert list(validator.iter_errors(full)) == []
    errors = list(validator.iter_errors({"inventory": "inventory.yaml", "selct": ["QOS"]}))
    assert len(errors) == 1 and "'selct' was unexpected" in errors[0].message
    errors = list(validator.iter_errors({"limits": {"max-file-mb": "big"}}))
    assert len(errors) == 1 and list(errors[0].absolute_path) == ["limits", "max-file-mb"]


def test_config_schema_lists_every_setting():
    from netlint.config import Settings

    schema = json.loads((PACKAGE_DIR / "config.schema.json").read_text())
    assert set(schema["properties"]) == {f.alias or n for n, f in Settings.model_fields.items()}
    assert schema["additionalProperties"] is False
