"""Acceptance (issue 19): yaml-language-server (npm) validates the examples against the schemas netlint
ships, through its ``yaml.schemas`` setting and through the modeline, and reports a wrong key and a
wrong type at their place. Driven over stdio like an editor would.

The server is found through ``NETLINT_YAML_LANGUAGE_SERVER`` (the path of its ``bin/yaml-language-server``;
.ci/run installs it with npm into a temporary prefix), else on PATH; the test skips, saying so, when it
or node is absent.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from lsp_client import LspClient
from netlint.schemas_gen import PACKAGE_DIR

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def server_argv() -> list[str]:
    node = shutil.which("node")
    found = os.environ.get("NETLINT_YAML_LANGUAGE_SERVER") or shutil.which("yaml-language-server")
    if node is None or not found or not Path(found).exists():
        pytest.skip("yaml-language-server (npm) or node not found: set NETLINT_YAML_LANGUAGE_SERVER "
                    "(.ci/run installs it)")
    return [node, str(Path(found).resolve()), "--stdio"]


def schema_uri(name: str) -> str:
    return (PACKAGE_DIR / f"{name}.schema.json").as_uri()


SETTINGS = {"yaml": {"validate": True, "schemas": {
    schema_uri("inventory"): ["inventory.yaml"],
    schema_uri("switch"): ["switches/*.yaml"],
    schema_uri("config"): ["netlint.yaml", ".netlint.yaml"],
}}}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLES, tmp_path / "repo", ignore=shutil.ignore_patterns(".netlint_cache"))
    return tmp_path / "repo"


@pytest.fixture
def yls(repo: Path):
    client = LspClient(server_argv(), cwd=repo, replies={
        # it asks for its settings (yaml, http, [yaml], editor) whether or not the client says it can answer
        "workspace/configuration": lambda p: [SETTINGS.get(i.get("section")) for i in p["items"]]})
    client.initialize(repo, capabilities={"workspace": {"configuration": True},
                                          "textDocument": {"publishDiagnostics": {}}})
    client.notify("workspace/didChangeConfiguration", {"settings": SETTINGS})
    yield client
    client.close()


# (examples/nics/gpu-nodes.yaml is a NIC Configuration Operator template, not netlint's NIC format)
@pytest.mark.parametrize("rel", ["inventory.yaml", "switches/leaf02.yaml", "netlint.yaml"])
def test_examples_are_valid_against_the_shipped_schemas(repo: Path, yls: LspClient, rel: str):
    uri = yls.open(repo / rel, "yaml")
    assert yls.diagnostics(uri) == []
    # the schema was applied: a key the schema does not have is reported in the same document
    text = (repo / rel).read_text()
    yls.change(uri, 2, text + "not_a_netlint_key: 1\n")
    diags = yls.diagnostics(uri, lambda d: bool(d))
    last = len(text.splitlines())
    assert [(d["message"], d["range"]["start"]) for d in diags] == \
        [("Property not_a_netlint_key is not allowed.", {"line": last, "character": 0})]


def test_wrong_key_and_wrong_type_in_the_inventory(repo: Path, yls: LspClient):
    text = (repo / "inventory.yaml").read_text()
    bad = text.replace("topology: rail-optimized", "topolgy: rail-optimized").replace("count: 32", "count: many")
    assert bad.count("topolgy") == 1 and "count: many" in bad
    uri = yls.open(repo / "inventory.yaml", "yaml", text=bad)
    diags = yls.diagnostics(uri, lambda d: len(d) >= 2)
    by_message = {d["message"]: d["range"]["start"] for d in diags}
    line = bad.splitlines().index("  topolgy: rail-optimized")
    assert by_message["Property topolgy is not allowed."] == {"line": line, "character": 2}
    count_line = next(i for i, l in enumerate(bad.splitlines()) if "count: many" in l)
    assert by_message['Incorrect type. Expected "integer".'] == {"line": count_line, "character": 9}


def test_config_schema_names_a_misspelt_setting(repo: Path, yls: LspClient):
    uri = yls.open(repo / "netlint.yaml", "yaml", text="inventory: inventory.yaml\nselct: [QOS]\n")
    (d,) = yls.diagnostics(uri, lambda d: bool(d))
    assert d["message"] == "Property selct is not allowed."
    assert d["range"]["start"] == {"line": 1, "character": 0}


def test_modeline_selects_the_policy_schema(repo: Path, yls: LspClient):
    policy = repo / "policies" / "org.yaml"
    policy.parent.mkdir()
    modeline = f"# yaml-language-server: $schema={schema_uri('policy')}\n"
    policy.write_text(modeline + "rules:\n  - id: ORG001\n    summary: MTU is 9100\n"
                      "    given: $.switches[*]\n    assert: self.name != ''\n    severty: warning\n")
    uri = yls.open(policy, "yaml")
    (d,) = yls.diagnostics(uri, lambda d: bool(d))
    assert d["message"] == "Property severty is not allowed."
    assert d["range"]["start"] == {"line": 6, "character": 4}
