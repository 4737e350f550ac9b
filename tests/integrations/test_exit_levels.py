"""Exit codes and levels: --fail-on, --exit-zero, --statistics, --quiet (docs/integrations.md)."""

from __future__ import annotations

import json

import pytest

from inttools import INVENTORY, _not_on_github, cli, write  # noqa: F401

WARNING_ONLY = INVENTORY + "cluster: again\n"          # NL009 duplicate key: a warning
ERROR = INVENTORY + "fabrik: {}\n"                      # NL004: an error
INFO_ENV = "NCCL_ALGO=Ring\n"                           # NCCL315: info


@pytest.mark.parametrize("inventory, fail_on, expected", [
    (INVENTORY, None, 0),
    (WARNING_ONLY, None, 1),          # default fail level: warning
    (WARNING_ONLY, "error", 0),
    (WARNING_ONLY, "warning", 1),
    (ERROR, "error", 1),
])
def test_fail_on(tmp_path, capsys, inventory, fail_on, expected):
    write(tmp_path, {"inventory.yaml": inventory})
    args = ["check", "-q", tmp_path] + (["--fail-on", fail_on] if fail_on else [])
    assert cli(capsys, *args)[0] == expected


def test_info_fails_only_with_fail_on_info(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY, "a.env": INFO_ENV})
    rc, out, _ = cli(capsys, "check", "--format", "json", tmp_path)
    found = json.loads(out)["findings"]
    if not any(f["severity"] == "info" for f in found):
        pytest.skip("no info finding for NCCL_ALGO today")
    assert {f["severity"] for f in found} == {"info"}
    assert rc == 0
    assert cli(capsys, "check", "-q", "--fail-on", "info", tmp_path)[0] == 1


def test_fail_on_from_config(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": WARNING_ONLY, "netlint.yaml": "fail-on: error\n"})
    assert cli(capsys, "check", "-q", tmp_path)[0] == 0
    assert cli(capsys, "check", "-q", "--fail-on", "warning", tmp_path)[0] == 1  # the flag wins


def test_exit_zero(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": ERROR})
    rc, out, _ = cli(capsys, "check", "--format", "text", "--exit-zero", tmp_path)
    assert rc == 0 and "NL004" in out


def test_exit_two_on_usage_and_config_errors(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY})
    assert cli(capsys, "check", tmp_path / "nope.yaml")[0] == 2
    assert cli(capsys, "check", "--fail-on", "fatal", tmp_path)[0] == 2
    write(tmp_path, {"netlint.yaml": "fial-on: error\n"})
    rc, _, err = cli(capsys, "check", "--exit-zero", tmp_path)
    assert rc == 2 and "NL008" in err  # --exit-zero does not hide a broken configuration


def test_quiet_prints_nothing(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": ERROR})
    rc, out, err = cli(capsys, "check", "-q", tmp_path)
    assert rc == 1 and out == "" and err == ""
    rc, out, err = cli(capsys, "check", "--quiet", "--format", "github", tmp_path)
    assert rc == 1 and out == ""


def test_statistics(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY + "fabrik: {}\nfabrak: {}\ncluster: d\n"})
    rc, out, _ = cli(capsys, "check", "--format", "text", "--statistics", tmp_path)
    lines = out.splitlines()
    stats = [ln for ln in lines if ln.startswith("    ")]
    assert stats == ["    2  NL004      unknown-key", "    1  NL009      duplicate-key"]
    rc, out, _ = cli(capsys, "check", "--format", "json", "--statistics", tmp_path)
    assert json.loads(out)["statistics"] == {"NL004": 2, "NL009": 1}


def test_suppressed_findings_do_not_fail(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY + "fabrik: {}  # netlint: disable=NL004 -- x\n"})
    assert cli(capsys, "check", "-q", tmp_path)[0] == 0
    assert cli(capsys, "check", "-q", "--no-inline-suppressions", tmp_path)[0] == 1
