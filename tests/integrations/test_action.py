"""The composite GitHub Action (action.yml): its shape, and its lint step run with bash as the runner would."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml

from inttools import ROOT, _not_on_github, copy_examples, sarif_validator  # noqa: F401

ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
EXPR = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")


def test_action_shape():
    assert ACTION["runs"]["using"] == "composite"
    assert {"paths", "args", "sarif-file"} <= set(ACTION["inputs"])
    assert ACTION["inputs"]["paths"]["default"] == "."
    assert set(ACTION["outputs"]) == {"exit-code", "sarif-file"}
    for step in ACTION["runs"]["steps"]:
        if "run" in step:
            assert step["shell"] == "bash"  # composite run steps must name a shell
            # inputs go through env, never pasted into the script (script injection)
            assert "${{" not in step["run"], step["name"]
    install = next(s for s in ACTION["runs"]["steps"] if s.get("name") == "Install netlint")
    assert install["env"]["NETLINT_SOURCE"] == "${{ github.action_path }}"
    assert "pip install" in install["run"]


def _step_env(step: dict, inputs: dict, runner_temp: str) -> dict:
    def value(expr: str) -> str:
        if expr.startswith("inputs."):
            name = expr[len("inputs."):]
            return inputs.get(name, ACTION["inputs"][name].get("default", ""))
        if expr == "runner.temp":
            return runner_temp
        if expr == "github.action_path":
            return str(ROOT)
        raise AssertionError(f"unexpected expression {expr}")

    return {k: EXPR.sub(lambda m: value(m.group(1)), str(v)) for k, v in step.get("env", {}).items()}


def _run_lint_step(tmp_path, inputs: dict, workspace=None) -> tuple[int, str, dict]:
    """Run the action's lint step with bash, netlint from this checkout standing in for the venv."""
    if shutil.which("bash") is None:
        pytest.skip("bash not available")
    runner_temp = tmp_path / "runner"
    bindir = runner_temp / "netlint-venv" / "bin"
    bindir.mkdir(parents=True)
    shim = bindir / "netlint"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m netlint "$@"\n')
    shim.chmod(0o755)
    step = next(s for s in ACTION["runs"]["steps"] if s.get("id") == "lint")
    output = tmp_path / "github_output"
    output.write_text("")
    env = {**os.environ, **_step_env(step, inputs, str(runner_temp)),
           "GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": str(output), "PYTHONPATH": str(ROOT)}
    env.pop("GITHUB_WORKSPACE", None)
    if workspace is not None:
        env["GITHUB_WORKSPACE"] = str(workspace)
    workdir = tmp_path / EXPR.sub(lambda m: inputs.get("working-directory", "."), step["working-directory"])
    # GitHub runs `bash --noprofile --norc -eo pipefail {0}` for `shell: bash`
    script = tmp_path / "step.sh"
    script.write_text(step["run"])
    proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=workdir,
                          env=env, capture_output=True, text=True)
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    return proc.returncode, proc.stdout + proc.stderr, outputs


def test_lint_step_annotates_and_writes_sarif(tmp_path):
    copy_examples(tmp_path / "repo" / "infra")
    rc, out, outputs = _run_lint_step(tmp_path, {"working-directory": "repo", "paths": "infra",
                                                 "args": "--fail-on error", "sarif-file": "netlint.sarif"},
                                      workspace=tmp_path / "repo")
    assert rc == 1, out
    assert outputs == {"exit-code": "1", "sarif-file": "netlint.sarif"}
    # paths relative to the repository (GITHUB_WORKSPACE), not to infra/netlint.yaml
    annotated = re.findall(r"^::error file=([^,]*),", out, re.M)
    assert annotated and all(f.startswith("infra/") for f in annotated)
    log = json.loads((tmp_path / "repo" / "netlint.sarif").read_text())
    sarif_validator().validate(log)
    run = log["runs"][0]
    assert run["invocations"][0]["exitCode"] == 1
    assert all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("infra/")
               for r in run["results"])


def test_lint_step_passes_args_and_globs(tmp_path):
    copy_examples(tmp_path / "repo")
    rc, out, outputs = _run_lint_step(tmp_path, {"working-directory": "repo", "paths": "nccl/*.env",
                                                 "args": "--exit-zero --select NL"})
    assert rc == 0 and outputs["exit-code"] == "0" and outputs["sarif-file"] == ""
    assert "All checks passed (1 file)" in out
