"""Baseline: --write-baseline F records today's findings; --baseline F reports only new ones.
Keyed by file, rule and the finding's logical key, never by line."""

from __future__ import annotations

import json

from inttools import INVENTORY, _not_on_github, cli, codes, findings, write  # noqa: F401

ENV = "NCCL_DEBUG=WARN\nNCCL_DEBUGG=WARN\n"   # NCCL301 at line 2, key NCCL_DEBUGG
INV = INVENTORY + "fabrik: {}\n"              # NL004 at line 4, key fabrik


def _repo(tmp_path):
    return write(tmp_path / "repo", {"inventory.yaml": INV, "nccl/train.env": ENV})


def test_write_then_use(tmp_path, capsys):
    repo = _repo(tmp_path)
    base = tmp_path / "baseline.json"
    rc, _, err = cli(capsys, "check", repo, "--write-baseline", base)
    assert rc == 0 and "wrote 2 findings" in err
    doc = json.loads(base.read_text())
    assert doc["netlint-baseline"] == 1
    entries = {(e["file"], e["code"], e["key"], e["count"]) for e in doc["findings"]}
    assert entries == {("inventory.yaml", "NL004", "fabrik", 1), ("nccl/train.env", "NCCL301", "NCCL_DEBUGG", 1)}
    assert all("line" not in e for e in doc["findings"])  # never keyed by line
    rc, found = findings(capsys, repo, "--baseline", base)
    assert rc == 0
    assert codes(found) == [] and sorted(codes(found, suppressed=True)) == ["NCCL301", "NL004"]
    assert all(f["suppression"]["kind"] == "baseline" for f in found)


def test_moving_the_faulty_line_down_ten_lines_does_not_resurrect_it(tmp_path, capsys):
    repo = _repo(tmp_path)
    base = tmp_path / "baseline.json"
    cli(capsys, "check", repo, "--write-baseline", base)
    filler = "".join(f"# comment {i}\n" for i in range(10))
    (repo / "inventory.yaml").write_text(INVENTORY + filler + "fabrik: {}\n")
    (repo / "nccl/train.env").write_text("NCCL_DEBUG=WARN\n" + "\n" * 10 + "NCCL_DEBUGG=WARN\n")
    rc, found = findings(capsys, repo, "--baseline", base)
    moved = [(f["code"], f["line"]) for f in found]
    assert sorted(moved) == [("NCCL301", 12), ("NL004", 14)]  # the findings moved ...
    assert rc == 0 and codes(found) == []                     # ... and stay baselined


def test_a_new_finding_still_fails(tmp_path, capsys):
    repo = _repo(tmp_path)
    base = tmp_path / "baseline.json"
    cli(capsys, "check", repo, "--write-baseline", base)
    (repo / "nccl/train.env").write_text(ENV + "NCCL_IB_TIMEOUTT=22\n")
    rc, found = findings(capsys, repo, "--baseline", base)
    assert rc == 1
    assert [(f["code"], f["line"]) for f in found if not f.get("suppressed")] == [("NCCL301", 3)]
    rc, out, _ = cli(capsys, "check", "--format", "text", repo, "--baseline", base)
    assert "NCCL_IB_TIMEOUTT" in out and "NCCL_DEBUGG" not in out and "2 suppressed" in out


def test_count_is_a_ratchet(tmp_path, capsys):
    # Same file, rule and key twice: the baseline records one, so the second is new.
    repo = write(tmp_path / "repo", {"inventory.yaml": INVENTORY, "a.env": "NCCL_DEBUGG=WARN\n"})
    base = tmp_path / "baseline.json"
    cli(capsys, "check", repo, "--write-baseline", base)
    (repo / "a.env").write_text("NCCL_DEBUGG=WARN\nNCCL_DEBUGG=INFO\n")
    rc, found = findings(capsys, repo, "--baseline", base)
    assert rc == 1
    assert [f["line"] for f in found if f["code"] == "NCCL301" and not f.get("suppressed")] == [2]


def test_stale_entries_are_noted(tmp_path, capsys):
    repo = _repo(tmp_path)
    base = tmp_path / "baseline.json"
    cli(capsys, "check", repo, "--write-baseline", base)
    (repo / "nccl/train.env").write_text("NCCL_DEBUG=WARN\n")
    rc, out, err = cli(capsys, "check", "--format", "text", repo, "--baseline", base)
    assert rc == 0
    assert "1 baseline entry no longer match" in err and "--write-baseline" in err


def test_bad_baseline_file_is_a_usage_error(tmp_path, capsys):
    repo = _repo(tmp_path)
    rc, _, err = cli(capsys, "check", repo, "--baseline", tmp_path / "missing.json")
    assert rc == 2 and "baseline file not found" in err
    (tmp_path / "bad.json").write_text('{"findings": 3}')
    rc, _, err = cli(capsys, "check", repo, "--baseline", tmp_path / "bad.json")
    assert rc == 2 and "not a netlint baseline" in err


def test_inline_suppressed_findings_are_not_written(tmp_path, capsys):
    repo = write(tmp_path / "repo", {"inventory.yaml": INVENTORY + "fabrik: {}  # netlint: disable=NL004 -- x\n",
                                     "nccl/train.env": ENV})
    base = tmp_path / "baseline.json"
    cli(capsys, "check", repo, "--write-baseline", base)
    assert [e["code"] for e in json.loads(base.read_text())["findings"]] == ["NCCL301"]


def test_partial_run_keeps_other_files_entries(tmp_path, capsys, monkeypatch):
    repo = _repo(tmp_path)
    base = tmp_path / "baseline.json"
    cli(capsys, "check", repo, "--write-baseline", base)
    (repo / "nccl/train.env").write_text("NCCL_DEBUG=WARN\nNCCL_IB_TIMEOUTT=22\n")
    monkeypatch.chdir(repo)
    cli(capsys, "check", "nccl/train.env", "--write-baseline", base)
    keys = sorted((e["file"], e["key"]) for e in json.loads(base.read_text())["findings"])
    assert keys == [("inventory.yaml", "fabrik"), ("nccl/train.env", "NCCL_IB_TIMEOUTT")]


def test_a_folder_run_replaces_its_own_entries_and_drops_deleted_files(tmp_path, capsys, monkeypatch):
    repo = write(tmp_path / "repo", {"netlint.yaml": "", "inventory.yaml": INV, "nccl/train.env": ENV,
                                     "nccl/old.env": ENV})
    base = tmp_path / "baseline.json"
    cli(capsys, "check", repo, "--write-baseline", base)
    (repo / "nccl/old.env").unlink()
    (repo / "nccl/train.env").write_text("NCCL_DEBUG=WARN\nNCCL_IB_TIMEOUTT=22\n")
    monkeypatch.chdir(repo)
    cli(capsys, "check", "nccl", "--write-baseline", base)  # the inventory is context here
    keys = sorted((e["file"], e["key"]) for e in json.loads(base.read_text())["findings"])
    assert keys == [("inventory.yaml", "fabrik"), ("nccl/train.env", "NCCL_IB_TIMEOUTT")]


def test_baselined_findings_stay_out_of_sarif(tmp_path, capsys):
    repo = _repo(tmp_path)
    base = tmp_path / "baseline.json"
    cli(capsys, "check", repo, "--write-baseline", base)
    rc, out, _ = cli(capsys, "check", "--format", "sarif", repo, "--baseline", base)
    assert json.loads(out)["runs"][0]["results"] == []
    rc, out, _ = cli(capsys, "check", "--format", "sarif", repo, "--baseline", base, "--sarif-include-suppressed")
    results = json.loads(out)["runs"][0]["results"]
    assert len(results) == 2
    assert all(r["suppressions"][0]["kind"] == "external" for r in results)
