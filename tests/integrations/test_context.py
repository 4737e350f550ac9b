"""Runs on some files (pre-commit) or folders: netlint loads the context itself and reports the given
files' findings, plus findings elsewhere that involve a given file through a rule that reads it."""

from __future__ import annotations

import subprocess

import json

from inttools import INVENTORY, _not_on_github, cli, copy_examples, findings, write  # noqa: F401

# A switch in netlint's native format with a fault of its own (NL004: unknown key).
LAB_SWITCH = "switch: lab\ntrust: dscp\nbogus_key: 1\n"
CLEAN_ENV = "NCCL_DEBUG=WARN\n"


def _files(found) -> set[str]:
    return {f["file"] for f in found if not f.get("suppressed")}


def test_only_the_given_file_is_reported_with_its_context(tmp_path, capsys, monkeypatch):
    repo = copy_examples(tmp_path / "repo")
    write(repo, {"nccl/lab.env": "NCCL_DEBUGG=WARN\n", "switches/lab.yaml": LAB_SWITCH})
    monkeypatch.chdir(repo)
    rc, everything = findings(capsys, ".")
    assert len(_files(everything)) > 2
    rc, found = findings(capsys, "nccl/lab.env")
    assert rc == 1 and _files(found) == {"nccl/lab.env"}
    rc, found = findings(capsys, "nccl/lab.env", "--select", "NL")
    assert rc == 0
    # The inventory and the switches it names were loaded as context: cross-file rules (XC6xx) see
    # them. What they find in train.env is the same as in a full run.
    rc, found = findings(capsys, "nccl/train.env")
    full = sorted((f["code"], f["line"]) for f in everything if f["file"] == "nccl/train.env")
    assert sorted((f["code"], f["line"]) for f in found) == full


def test_a_given_switch_reports_what_its_change_involves(tmp_path, capsys, monkeypatch):
    # pre-commit with one switch staged: its own findings, and those elsewhere whose rule reads
    # switches and that involve it (a related location in it); never the jobs' DeepSpeed errors.
    repo = copy_examples(tmp_path / "repo")
    monkeypatch.chdir(repo)
    _, everything = findings(capsys, ".")
    assert {"JOB430", "JOB410"} <= {f["code"] for f in everything}
    leaf01 = "switches/leaf01/config_db.json"
    rc, found = findings(capsys, leaf01)
    assert rc == 1
    elsewhere = [f for f in found if f["file"] != leaf01]
    assert {(f["file"], f["code"], f["line"], f["column"]) for f in elsewhere} >= {
        ("nccl/train.env", "XC601", 7, 12), ("nics/gpu-nodes.yaml", "NIC205", 17, 16)}
    assert all(any(r["file"] == leaf01 for r in f["related"]) for f in elsewhere)
    assert not any(f["code"].startswith(("JOB", "FAB")) or f["file"].startswith("jobs/") for f in found)
    # a switch nothing relates to reports its own findings only
    write(repo, {"switches/lab.yaml": LAB_SWITCH})
    rc, found = findings(capsys, "switches/lab.yaml")
    assert rc == 1 and [(f["file"], f["code"], f["line"], f["column"]) for f in found] == \
        [("switches/lab.yaml", "NL004", 3, 1)]


def test_a_given_inventory_reports_what_involves_it(tmp_path, capsys, monkeypatch):
    repo = copy_examples(tmp_path / "repo")
    monkeypatch.chdir(repo)
    _, everything = findings(capsys, ".")
    rc, found = findings(capsys, "inventory.yaml")
    assert rc == 1
    assert {("switches/leaf01/config_db.json", "QOS108", 13, 50), ("switches/leaf01/config_db.json", "QOS101", 40, 66),
            ("switches/leaf02.yaml", "QOS109", 4, 38)} <= {(f["file"], f["code"], f["line"], f["column"]) for f in found}
    # QOS101/QOS109 follow from fabric.roce.dscp / cnp_dscp: they name it as a related location
    related = {f["code"]: {(r["file"], r["line"], r["column"]) for r in f["related"]} for f in found}
    assert ("inventory.yaml", 23, 11) in related["QOS101"] and ("inventory.yaml", 25, 15) in related["QOS109"]
    assert all(f["file"] == "inventory.yaml" or any(r["file"] == "inventory.yaml" for r in f["related"])
               for f in found)
    assert len(found) < len(everything) and not any(f["code"].startswith("JOB") for f in found)


def test_a_given_env_file_reports_only_what_involves_it(tmp_path, capsys, monkeypatch):
    repo = copy_examples(tmp_path / "repo")
    write(repo, {".env": CLEAN_ENV})
    monkeypatch.chdir(repo)
    _, everything = findings(capsys, ".")
    assert any(f["file"].startswith("jobs/") for f in everything)
    # the jobs below it are loaded (their env is this file) but their own faults are not the edit's
    rc, found = findings(capsys, ".env")
    assert (rc, found) == (0, [])


def test_a_folder_reports_its_files_not_the_context_it_loads(tmp_path, capsys, monkeypatch):
    repo = copy_examples(tmp_path / "repo")
    monkeypatch.chdir(repo)
    rc, out, _ = cli(capsys, "check", "--format", "json", "jobs")
    doc = json.loads(out)
    assert rc == 1 and {f["file"] for f in doc["findings"]} == \
        {"jobs/ds_config.json", "jobs/deepspeed/ds_config.json", "jobs/pretrain_gpt.sh"}
    assert sorted(doc["files"]) == ["jobs/deepspeed/ds_config.json", "jobs/deepspeed/hostfile",
                                    "jobs/ds_config.json", "jobs/pretrain_gpt.sh"]
    # nccl/: the XC601 of train.env, found with the inventory and leaf01 loaded as context
    rc, out, _ = cli(capsys, "check", "nccl")
    assert out.splitlines()[0].startswith("nccl/train.env:7:12: XC601 ")
    assert "    switches/leaf01/config_db.json:20:17: " in out and "QOS1" not in out
    assert "in 1 file." in out


def test_a_given_job_sees_the_env_files_above_it(tmp_path):
    from netlint.engine import Options, lint

    write(tmp_path, {"netlint.yaml": "", "inventory.yaml": INVENTORY, ".env": "NCCL_IB_TC=106\n", "jobs/other.env": CLEAN_ENV,
                     "jobs/run.sh": "#!/bin/bash\nexport NCCL_IB_TC=105\nsrun torchrun --nproc_per_node 8 train.py\n",
                     "unrelated/x.env": "NCCL_DEBUGG=WARN\n"})
    report = lint(Options(paths=[tmp_path / "jobs" / "run.sh"], jobs=1))
    env_files = sorted(e.file for e in report.workspace.nccl_envs)
    assert env_files == [".env", "jobs/other.env", "jobs/run.sh"]
    assert report.workspace.targets == {"jobs/run.sh"}
    assert {f.file for f in report.findings} <= {"jobs/run.sh"}


def test_a_given_env_alone_loads_no_siblings(tmp_path):
    from netlint.engine import Options, lint

    write(tmp_path, {"a.env": "NCCL_DEBUGG=WARN\n", "b.env": "NCCL_DEBUG=WARN\n"})
    report = lint(Options(paths=[tmp_path / "a.env"], jobs=1))
    assert [e.file for e in report.workspace.nccl_envs] == ["a.env"]


def test_force_exclude_skips_what_netlint_does_not_read(tmp_path, capsys, monkeypatch):
    write(tmp_path, {"inventory.yaml": INVENTORY, "netlint.yaml": "exclude: ['legacy/**']\n",
                     ".github/workflows/ci.yml": "on: push\njobs: {}\n", "README.md": "# infra\n",
                     "docker-compose.yml": "services: {}\n", "legacy/old.env": "NCCL_DEBUGG=1\n",
                     "nccl/a.env": "NCCL_DEBUGG=1\n"})
    monkeypatch.chdir(tmp_path)
    named = [".github/workflows/ci.yml", "README.md", "docker-compose.yml", "legacy/old.env"]
    rc, found = findings(capsys, *named)
    assert rc == 1 and {"NL007", "NCCL301"} <= {f["code"] for f in found}  # named explicitly: reported
    rc, found = findings(capsys, "--force-exclude", *named)
    assert rc == 0 and found == []
    rc, found = findings(capsys, "--force-exclude", *named, "nccl/a.env")
    assert rc == 1 and [(f["file"], f["code"]) for f in found] == [("nccl/a.env", "NCCL301")]


def test_root_without_config_is_the_git_work_tree(tmp_path, capsys, monkeypatch):
    # No netlint.yaml: the inventory at the top of the git repository is still the context.
    repo = copy_examples(tmp_path / "repo")
    (repo / "netlint.yaml").unlink()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    monkeypatch.chdir(repo / "nccl")
    _, found = findings(capsys, "train.env")
    monkeypatch.chdir(repo)
    _, full = findings(capsys, ".")
    assert sorted((f["code"], f["line"]) for f in found) == \
        sorted((f["code"], f["line"]) for f in full if f["file"] == "nccl/train.env")
    assert {f["file"] for f in found} == {"train.env"}  # relative to where netlint ran


def test_every_rule_reads_kinds_the_loaders_produce():
    # a loader of a new kind must be declared in netlint.rule_inputs, or no rule would "read" it
    from netlint.loaders.base import load_loaders
    from netlint.rule_inputs import ALL_KINDS, inputs_of
    from netlint.rules.base import load_rules

    assert {loader.kind for loader in load_loaders().values()} <= ALL_KINDS
    for code, rule in load_rules().items():
        assert rule.inputs() and rule.inputs() <= ALL_KINDS, code
    assert "switches" in inputs_of("XC601") and "switches" not in inputs_of("JOB430")
    assert inputs_of("ORG001") == ALL_KINDS  # a policy sees the whole workspace
