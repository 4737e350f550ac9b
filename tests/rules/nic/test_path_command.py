"""`netlint path`: the RoCE path per job, hop by hop, text and JSON; each break names its owner rule, and
that rule reports it (once) in `netlint check`."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT, lint_repo, write_repo
from test_nic_rules import NCCL, SWITCH, inventory

from netlint.cli import main


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # files are named from the current directory, as `netlint check` does


def _repo(tmp_path, nic: str):
    return write_repo(tmp_path, {"inventory.yaml": inventory(switch=True), "leaf01.yaml": SWITCH,
                                 "nccl.env": NCCL, "nic.yaml": nic})


def _json(tmp_path, capsys, path):
    code = main(["path", "--format", "json", str(path)])
    return code, json.loads(capsys.readouterr().out)


def test_json_chain_breaks_at_the_nic_priority_and_names_xc610(tmp_path, capsys):
    repo = _repo(tmp_path, "nic: a\ntrust: dscp\npfc: [3]\ndscp_to_priority: {26: 4}\n"
                           "dcqcn: {rp_enable: [3], np_enable: [3], cnp_dscp: 48, cnp_priority: 6}\n")
    code, data = _json(tmp_path, capsys, repo)
    assert code == 1
    (chain,) = data["chains"]
    assert (chain["job"], chain["node_group"], chain["nic_files"]) == ("nccl.env", "gpu", ["nic.yaml"])
    steps = {h["step"]: h for h in chain["hops"]}
    assert steps["traffic class"]["value"] == "NCCL_IB_TC=106 -> DSCP 26, ECN ECT(0)"
    assert (steps["traffic class"]["status"], steps["traffic class"]["location"]) == ("ok", "nccl.env:2:12")
    prio = steps["NIC priority"]
    assert (prio["status"], prio["owner"], prio["location"]) == ("break", "XC610", "nic.yaml:4:24")
    assert steps["leaf01 DSCP->TC"]["value"] == "DSCP 26 -> TC 3" and steps["leaf01 PFC"]["status"] == "ok"
    assert steps["leaf01 ECN"]["status"] == "ok" and steps["CNP"]["status"] == "ok"
    assert steps["leaf01 CNP class"]["value"] == "DSCP 48 -> TC 6"
    assert chain["break"]["step"] == "NIC priority"
    # the owner reports it, once, at that place
    report = lint_repo(tmp_path, {})
    hits = [f for f in report.findings if f.code == "XC610"]
    assert [(f.file, f.span.line, f.span.col) for f in hits] == [("nic.yaml", 4, 24)]


def test_text_clean_chain_exits_0(tmp_path, capsys):
    repo = _repo(tmp_path, "nic: a\ntrust: dscp\npfc: [3]\ndcqcn: {rp_enable: [3], np_enable: [3], cnp_dscp: 48}\n")
    assert main(["path", str(repo)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "RoCE path of nccl.env, node group gpu (NIC files: nic.yaml)"
    assert "  ok    NIC priority" in out and "DSCP 26 -> priority 3 (default DSCP >> 3)" in out
    assert out.rstrip().endswith("no break found")


def test_text_shows_each_break_with_its_owner(tmp_path, capsys):
    repo = _repo(tmp_path, "nic: a\ntrust: pcp\npfc: [4]\ndcqcn: {rp_enable: [4], np_enable: [4], cnp_dscp: 24}\n")
    assert main(["path", str(repo)]) == 1
    out = capsys.readouterr().out
    rows = {line[8:].split("  ")[0].strip(): line for line in out.splitlines() if line.startswith("  BREAK")}
    assert set(rows) == {"NIC trust", "NIC PFC", "NIC DCQCN", "CNP"}
    assert rows["NIC trust"].endswith("[nic.yaml:2:8]  NIC201: untagged RoCE v2 is classified as priority 0")
    assert "[nic.yaml:3:6]  NIC202" in rows["NIC PFC"] and "[nic.yaml:4:20]  NIC204" in rows["NIC DCQCN"]
    assert "NIC205" in rows["CNP"]
    assert "  breaks first at: NIC trust (NIC201)" in out


def test_a_wrong_dscp_is_one_break_owned_by_xc601_on_the_examples(capsys, monkeypatch):
    monkeypatch.chdir(ROOT / "examples")
    assert main(["path", "--format", "json", str(ROOT / "examples")]) == 1
    (chain,) = json.loads(capsys.readouterr().out)["chains"]
    brk = chain["break"]
    assert (brk["step"], brk["owner"], brk["location"]) == ("traffic class", "XC601", "nccl/train.env:7:12")
    # the hops that break only because of DSCP 10 point at the same owner
    owners = {h["step"]: h["owner"] for h in chain["hops"] if h["status"] == "break"}
    assert owners["NIC priority"] == owners["leaf01 DSCP->TC"] == "XC601"
    assert owners["CNP"] == "NIC205"   # the NIC's own CNP class is a break of its own
