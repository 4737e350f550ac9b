"""Helpers for the integration tests (pre-commit, GitHub, SARIF, suppressions, baseline).

A module, not a second conftest: the suite imports ``conftest`` by name."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from conftest import SHARED
from netlint.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SCHEMA = SHARED / "reference" / "sarif-schema-2.1.0.json"

# A valid inventory: nothing to report on its own.
INVENTORY = textwrap.dedent("""\
    cluster: c
    nodes: {count: 1, gpus: 8, gpu: H100-SXM}
    fabric: {transport: roce}
    """)


@pytest.fixture(autouse=True)
def _not_on_github(monkeypatch):
    """Tests choose the format themselves; a CI run on GitHub must not switch them to annotations."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8", newline="")
    return root


def cli(capsys, *args) -> tuple[int, str, str]:
    """``netlint`` in process: (exit code, stdout, stderr)."""
    capsys.readouterr()
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return rc, out, err


def findings(capsys, *args) -> tuple[int, list[dict]]:
    """Run ``netlint check --format json ARGS``: (exit code, findings)."""
    rc, out, _ = cli(capsys, "check", "--format", "json", *args)
    return rc, json.loads(out)["findings"]


def codes(found: list[dict], *, suppressed: bool = False) -> list[str]:
    return [f["code"] for f in found if bool(f.get("suppressed")) == suppressed]


def copy_examples(dest: Path) -> Path:
    shutil.copytree(EXAMPLES, dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".netlint_cache"))
    return dest


def sarif_validator():
    import jsonschema

    if not SCHEMA.is_file():
        pytest.skip(f"{SCHEMA} (the shared SARIF schema) is absent")
    return jsonschema.Draft4Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))
