"""One path convention (netlint.display): what a person reads names files from the current directory
(absolute when not below it); SARIF, GitHub annotations and --diff headers from the repository's top.
The fixture is a git repository holding examples/ in a folder of its own (``infra/``), so the
netlint configuration's folder, the repository's top and the current directory all differ."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from inttools import _not_on_github, cli, copy_examples  # noqa: F401

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@netlint.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@netlint.invalid", "GIT_CONFIG_GLOBAL": "/dev/null",
           "GIT_CONFIG_NOSYSTEM": "1"}
TEXT_LINE = re.compile(r"^(\S.*?):(\d+):(\d+): ([A-Z]+[0-9]+) ")


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, env={**os.environ, **GIT_ENV}, capture_output=True,
                          text=True, check=check)


def git_apply(cwd: Path, patch: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "apply", *args, "-"], cwd=cwd, input=patch, env={**os.environ, **GIT_ENV},
                          capture_output=True, text=True)


@pytest.fixture
def repo(tmp_path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    top = tmp_path / "repo"
    copy_examples(top / "infra")
    git(tmp_path, "init", "-q", "-b", "main", str(top))
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "examples")
    return top


def test_diff_from_a_subfolder_applies_with_git_apply(repo, capsys, monkeypatch):
    sub = repo / "infra" / "jobs"
    monkeypatch.chdir(sub)
    rc, patch, _ = cli(capsys, "check", "--diff", "--unsafe-fixes", ".")
    assert rc == 1 and "+++ b/infra/jobs/ds_config.json\n" in patch  # as `git diff` names it
    # from the repository's top, and from the folder netlint ran in
    for where in (repo, sub):
        proc = git_apply(where, patch, "--check")
        assert proc.returncode == 0, (where, proc.stderr)
    assert git_apply(sub, patch).returncode == 0
    assert '"overlap_comm": true' in (sub / "ds_config.json").read_text()
    assert git_apply(repo, patch, "--check").returncode == 1  # applied: it no longer applies


def test_json_text_and_sarif_name_the_same_files_from_a_subfolder(repo, capsys, monkeypatch):
    sub = repo / "infra" / "jobs"
    monkeypatch.chdir(sub)
    _, out, _ = cli(capsys, "check", "--format", "json", "..")
    doc = json.loads(out)
    _, text, _ = cli(capsys, "check", "--format", "text", "..")
    _, sarif, _ = cli(capsys, "check", "--format", "sarif", "..")
    run = json.loads(sarif)["runs"][0]
    base = Path(unquote(urlparse(run["originalUriBaseIds"]["%SRCROOT%"]["uri"]).path))
    assert base == repo.resolve()

    from_json = [(f["file"], f["line"], f["column"], f["code"]) for f in doc["findings"]]
    from_text = [(m[1], int(m[2]), int(m[3]), m[4]) for m in map(TEXT_LINE.match, text.splitlines()) if m]
    assert sorted(from_json) == sorted(from_text) and len(from_json) > 10
    # below the current directory: relative to it; above it: absolute. Every one names a real file.
    files = {f for f, *_ in from_json}
    assert {"ds_config.json", "pretrain_gpt.sh", "deepspeed/ds_config.json"} <= files
    assert (repo / "infra" / "nccl" / "train.env").resolve().as_posix() in files
    assert all((sub / f).is_file() for f in files) and all(f in files or Path(f).is_absolute() for f in files)
    assert all(Path(f).is_absolute() for f in files if not (sub.resolve() / f).resolve().is_relative_to(sub))

    def sarif_file(loc) -> Path:
        art = loc["physicalLocation"]["artifactLocation"]
        assert art["uriBaseId"] == "%SRCROOT%" and not art["uri"].startswith("/")
        return (base / unquote(art["uri"])).resolve()

    from_sarif = sorted((sarif_file(r["locations"][0]), r["locations"][0]["physicalLocation"]["region"]["startLine"],
                         r["ruleId"]) for r in run["results"])
    assert from_sarif == sorted(((sub / f).resolve(), line, code) for f, line, _, code in from_json)
    # the summary counts the files asked for, which JSON lists the same way
    assert f"in {len(doc['files'])} files." in text and "ds_config.json" in doc["files"]


def test_a_folder_reports_its_own_files_and_counts_them(repo, capsys, monkeypatch):
    monkeypatch.chdir(repo)
    _, out, _ = cli(capsys, "check", "--format", "json", "infra/jobs")
    doc = json.loads(out)
    assert {f["file"].split("/")[1] for f in doc["findings"]} == {"jobs"}
    assert len(doc["files"]) == 4  # the two DeepSpeed configs, the hostfile, the launch script
    # what the jobs read from the context is a related location, not a finding of its own
    _, out, _ = cli(capsys, "check", "--format", "json", "infra/nccl")
    found = json.loads(out)["findings"]
    assert [(f["file"], f["code"], f["line"], f["column"]) for f in found] == \
        [("infra/nccl/train.env", "XC601", 7, 12)]
    assert {r["file"] for r in found[0]["related"]} == {"infra/inventory.yaml",
                                                        "infra/switches/leaf01/config_db.json"}


def test_staged_switch_reports_what_involves_it_not_the_jobs(repo, capsys, monkeypatch):
    # what the pre-commit hook runs when only the switch is staged (.pre-commit-hooks.yaml)
    monkeypatch.chdir(repo)
    leaf01 = "infra/switches/leaf01/config_db.json"
    rc, text, _ = cli(capsys, "check", "--force-exclude", leaf01)
    assert rc == 1
    heads = [m.groups() for m in map(TEXT_LINE.match, text.splitlines()) if m]
    assert ("infra/nccl/train.env", "7", "12", "XC601") in heads
    assert ("infra/nics/gpu-nodes.yaml", "17", "16", "NIC205") in heads
    assert not any(code.startswith(("JOB", "FAB")) or f.startswith("infra/jobs/") for f, _, _, code in heads)
    assert "in 1 file." in text


def _branch_with_switch_edit(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "mtu")
    path = repo / "infra" / "switches" / "leaf01" / "config_db.json"
    path.write_text(path.read_text().replace('"mtu": "1500"', '"mtu": "9100"'))
    git(repo, "commit", "-q", "-am", "leaf01: MTU 9100 on Ethernet16")


def test_changed_since_checks_what_the_branch_changed(repo, capsys, monkeypatch):
    _branch_with_switch_edit(repo)
    monkeypatch.chdir(repo)
    rc, changed, _ = cli(capsys, "check", "--format", "json", "--changed-since", "main")
    staged_rc, staged, _ = cli(capsys, "check", "--format", "json", "--force-exclude",
                               "infra/switches/leaf01/config_db.json")
    doc = json.loads(changed)
    assert doc["files"] == ["infra/switches/leaf01/config_db.json"]
    assert (rc, doc["findings"]) == (staged_rc, json.loads(staged)["findings"])
    assert "QOS108" not in {f["code"] for f in doc["findings"]}  # the edit fixed it
    assert not any(f["code"].startswith("JOB") for f in doc["findings"])
    # an untracked env file counts as a change; a PATH limits the run to what lies below it
    (repo / "infra" / "nccl" / "lab.env").write_text("NCCL_DEBUGG=WARN\n")
    rc, out, _ = cli(capsys, "check", "--format", "json", "--changed-since", "main", "infra/nccl")
    doc = json.loads(out)
    assert rc == 1 and doc["files"] == ["infra/nccl/lab.env"]
    assert [(f["file"], f["code"], f["line"], f["column"]) for f in doc["findings"]] == \
        [("infra/nccl/lab.env", "NCCL301", 1, 1)]
    # nothing changed under a folder: nothing checked, exit 0
    rc, out, _ = cli(capsys, "check", "--changed-since", "main", "infra/jobs")
    assert (rc, out) == (0, "All checks passed (0 files).\n")


@pytest.mark.parametrize("ref, message", [("no-such-branch", "is not a commit of this repository"),
                                          ("--output=x", "is not a git revision")])
def test_changed_since_bad_ref_is_a_usage_error(repo, capsys, monkeypatch, ref, message):
    monkeypatch.chdir(repo)
    rc, out, err = cli(capsys, "check", f"--changed-since={ref}")
    assert (rc, out) == (2, "") and message in err and err.count("\n") == 1


def test_changed_since_outside_a_repository_is_a_usage_error(tmp_path, capsys, monkeypatch):
    copy_examples(tmp_path / "plain")
    monkeypatch.chdir(tmp_path / "plain")
    rc, out, err = cli(capsys, "check", "--changed-since", "HEAD")
    assert (rc, out) == (2, "") and "is not in a git repository" in err
