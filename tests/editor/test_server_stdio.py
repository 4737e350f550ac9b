"""Acceptance (issue 19): ``netlint server`` in a subprocess, driven over stdio by a JSON-RPC client.

initialize → didOpen of an env file whose NCCL_IB_TC disagrees with the switch (XC601) → a diagnostic
at the value with a related location in the switch file; codeAction returns the fix; a didChange that
fixes it clears the diagnostic; editing the switch re-publishes the env file's diagnostics.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from lsp_client import LspClient  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLES, tmp_path / "repo", ignore=shutil.ignore_patterns(".netlint_cache"))
    return tmp_path / "repo"


@pytest.fixture
def client(repo: Path):
    c = LspClient([sys.executable, "-m", "netlint", "server"], cwd=repo)
    yield c
    c.close()


def xc601(diags: list[dict]) -> list[dict]:
    return [d for d in diags if d.get("code") == "XC601"]


def test_env_file_against_switch_diagnostics_fix_and_republish(repo: Path, client: LspClient):
    init = client.initialize(repo)
    caps = init["capabilities"]
    assert caps["hoverProvider"] and caps["completionProvider"] and caps["codeActionProvider"]

    env = repo / "nccl" / "train.env"
    switch = repo / "switches" / "leaf01" / "config_db.json"
    text = env.read_text()
    uri = client.open(env, "dotenv")
    diags = xc601(client.diagnostics(uri))
    assert len(diags) == 1
    d = diags[0]
    # NCCL_IB_TC=41 is line 7 of the file; the value 41 spans columns 12-13 (0-based 6, 11..13)
    assert d["range"] == {"start": {"line": 6, "character": 11}, "end": {"line": 6, "character": 13}}
    assert d["severity"] == 1 and d["source"] == "netlint"
    related = {r["location"]["uri"]: r for r in d["relatedInformation"]}
    assert switch.as_uri() in related
    assert related[switch.as_uri()]["location"]["range"]["start"]["line"] == 19  # the DSCP_TO_TC_MAP entry
    assert (repo / "inventory.yaml").as_uri() in related

    actions = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": d["range"], "context": {"diagnostics": [d]}})
    fixes = [a for a in actions if a.get("kind") == "quickfix" and "edit" in a and "Suppress" not in a["title"]]
    assert len(fixes) == 1 and fixes[0]["title"].startswith("Unsafe fix:")
    assert not fixes[0].get("isPreferred")
    (edit,) = fixes[0]["edit"]["changes"][uri]
    assert edit["range"] == d["range"] and int(edit["newText"]) >> 2 == 26  # DSCP 26, the inventory's
    suppress = [a for a in actions if a["title"] == "Suppress XC601 on this line"]
    (sedit,) = suppress[0]["edit"]["changes"][uri]
    assert sedit["range"]["start"] == {"line": 6, "character": 0}
    assert sedit["newText"].startswith("# netlint: disable=XC601 -- ")

    fixed = text.replace("NCCL_IB_TC=41", f"NCCL_IB_TC={edit['newText']}")
    client.change(uri, 2, fixed)
    assert xc601(client.diagnostics(uri)) == []

    client.change(uri, 3, text)  # back to 41: the finding returns
    assert len(xc601(client.diagnostics(uri))) == 1

    # The switch maps DSCP 10 to the lossless TC 3 in the editor (unsaved): the env file's
    # diagnostics are published again, without the switch as a reason.
    sw_uri = client.open(switch, "json")
    client.diagnostics(sw_uri)
    sw_text = switch.read_text()
    edited = sw_text.replace('"RDMA": {"0": "0", "8": "0", "26": "3"', '"RDMA": {"0": "0", "8": "0", "10": "3", "26": "3"')
    assert edited != sw_text
    client.notifications.clear()
    client.change(sw_uri, 2, edited)
    again = xc601(client.diagnostics(uri))
    assert len(again) == 1
    assert all(r["location"]["uri"] != sw_uri for r in again[0].get("relatedInformation") or [])
    assert "leaf01" not in again[0]["message"]


def test_hover_and_completion_over_stdio(repo: Path, client: LspClient):
    client.initialize(repo)
    env = repo / "nccl" / "train.env"
    uri = client.open(env, "dotenv")
    client.diagnostics(uri)
    on_finding = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                       "position": {"line": 6, "character": 12}})
    assert "XC601" in on_finding["contents"]["value"]
    on_name = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                    "position": {"line": 6, "character": 3}})
    assert "NCCL_IB_TC" in on_name["contents"]["value"] and "0..255" in on_name["contents"]["value"]
    client.change(uri, 2, env.read_text() + "NCCL_IB_GI")
    items = client.request("textDocument/completion", {"textDocument": {"uri": uri},
                                                       "position": {"line": 9, "character": 10}})["items"]
    labels = {i["label"] for i in items}
    assert "NCCL_IB_GID_INDEX" in labels and all(label.startswith("NCCL_IB_GI") for label in labels)


def test_server_without_pygls_prints_a_hint_and_exits_2(tmp_path: Path):
    import subprocess

    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "pygls.py").write_text("raise ImportError('blocked for the test')\n")
    import os

    env = dict(os.environ, PYTHONPATH=str(blocker))
    proc = subprocess.run([sys.executable, "-m", "netlint", "server"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == ["netlint: the language server needs pygls: pip install 'netlint[lsp]'"]


def test_a_watched_context_file_changed_on_disk_republishes(repo: Path, client: LspClient):
    client.initialize(repo, capabilities={"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}})
    env = repo / "nccl" / "train.env"
    uri = client.open(env, "dotenv")
    assert "leaf01" in xc601(client.diagnostics(uri))[0]["message"]
    switch = repo / "switches" / "leaf01" / "config_db.json"
    switch.write_text(switch.read_text().replace('"8": "0", "26": "3"', '"8": "0", "10": "3", "26": "3"'))
    client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": switch.as_uri(), "type": 2}]})
    again = xc601(client.diagnostics(uri))
    assert len(again) == 1 and "leaf01" not in again[0]["message"]


def test_a_broken_configuration_is_shown_on_the_configuration(repo: Path, client: LspClient):
    client.initialize(repo)
    config = repo / "netlint.yaml"
    uri = client.open(config, "yaml", text="inventory: inventory.yaml\nselct: [QOS]\n")
    (d,) = client.diagnostics(uri, lambda d: bool(d))
    assert d["code"] == "NL008" and "selct" in d["message"] and d["range"]["start"]["line"] == 1
    client.change(uri, 2, "inventory: inventory.yaml\n")
    assert client.diagnostics(uri) == []
