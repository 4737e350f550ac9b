"""The composite GitHub Action (action.yml): its shape, and its shell steps run with bash as the runner
would (`bash --noprofile --norc -eo pipefail FILE`), with a fake GITHUB_* environment."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

from inttools import ROOT, _not_on_github, copy_examples, sarif_validator  # noqa: F401

ACTION_TEXT = (ROOT / "action.yml").read_text(encoding="utf-8")
ACTION = yaml.safe_load(ACTION_TEXT)
STEPS = ACTION["runs"]["steps"]
EXPR = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")
SHA_PIN = re.compile(r"^\s*(?:-\s+)?uses:\s*(\S+)@([0-9a-f]{40}) # v\d+\.\d+\.\d+\s*$")
WORKFLOW = ROOT / "docs" / "github-workflow.yml"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="the action's steps are bash")


def _step(key: str) -> dict:
    return next(s for s in STEPS if key in (s.get("id"), s.get("name")))


def test_action_shape():
    assert ACTION["runs"]["using"] == "composite"
    assert {"paths", "args", "sarif-file", "working-directory", "python-version"} == set(ACTION["inputs"])
    assert ACTION["inputs"]["paths"]["default"] == "."
    assert set(ACTION["outputs"]) == {"exit-code", "sarif-file"}
    for step in STEPS:
        if "run" in step:
            assert step["shell"] == "bash"  # composite run steps must name a shell
            # inputs go through env, never pasted into the script (script injection); the logic is a
            # script of the repository so the tests below run exactly what the runner runs
            assert "${{" not in step["run"], step["name"]
            script = re.fullmatch(r'bash "\$NETLINT_SOURCE/(\.github/action/[\w-]+\.sh)"', step["run"])
            assert script and (ROOT / script.group(1)).is_file(), step["run"]
            assert step["env"]["NETLINT_SOURCE"] == "${{ github.action_path }}"


def test_actions_are_pinned_by_commit_with_the_tag_beside():
    uses = [line for line in ACTION_TEXT.splitlines() if re.match(r"^\s*(-\s+)?uses:", line)]
    assert len(uses) == 2
    for line in uses:
        assert SHA_PIN.match(line), line
    pinned = {SHA_PIN.match(line).group(1) for line in uses}
    assert pinned == {"actions/setup-python", "actions/cache"}


def test_python_environment_is_the_actions_own():
    setup = _step("python")
    assert setup["with"]["update-environment"] is False  # the caller's python and PATH stay
    install = _step("Install netlint")
    venv = install["env"]["NETLINT_VENV"]
    assert venv.startswith("${{ runner.temp }}/")
    lint = _step("lint")
    assert lint["env"]["NETLINT"].startswith(venv) and lint["env"]["NETLINT_PYTHON"].startswith(venv)
    cache = next(s for s in STEPS if s.get("uses", "").startswith("actions/cache@"))
    assert cache["with"]["path"] == install["env"]["PIP_CACHE_DIR"]
    assert cache["with"]["key"] == "${{ steps.cache-key.outputs.key }}"
    # no step keeps .netlint_cache after the job: the lint step does not write it unless told
    assert lint["env"]["NETLINT_NO_CACHE"] == "${{ env.NETLINT_NO_CACHE || '1' }}"
    script = (ROOT / ".github/action/install.sh").read_text(encoding="utf-8")
    assert '--constraint "$constraints"' in script and "--no-build-isolation" in script


# -- running the steps --------------------------------------------------------------------------------

def _env(step: dict, inputs: dict, runner_temp: Path) -> dict:
    def value(expr: str) -> str:
        if expr.startswith("inputs."):
            name = expr[len("inputs."):]
            return inputs.get(name, ACTION["inputs"][name].get("default", ""))
        if expr == "runner.temp":
            return str(runner_temp)
        if expr == "github.action_path":
            return str(ROOT)
        if expr == "env.NETLINT_NO_CACHE || '1'":
            return os.environ.get("NETLINT_NO_CACHE") or "1"  # the job's own env, else the default
        if expr == "steps.python.outputs.python-path || 'python3'":
            return sys.executable  # what setup-python's python-path output names
        raise AssertionError(f"unexpected expression {expr}")

    return {k: EXPR.sub(lambda m: value(m.group(1)), str(v)) for k, v in step.get("env", {}).items()}


def _run(tmp_path: Path, key: str, inputs: dict, workspace: Path | None = None) -> dict:
    """Run one run-step of action.yml with bash; netlint from this checkout stands in for the venv,
    behind a shim that records its argv. Returns rc, log, outputs, summary, argv (None: not run)."""
    runner_temp = tmp_path / "runner"
    runner_temp.mkdir(exist_ok=True)
    argv_file = tmp_path / "argv.json"
    step = _step(key)
    if key != "Install netlint":
        bindir = runner_temp / "netlint-venv" / "bin"
        bindir.mkdir(parents=True, exist_ok=True)
        shim = bindir / "netlint"
        shim.write_text(f'#!/bin/sh\n"{sys.executable}" -c "import json, sys; json.dump(sys.argv[2:], '
                        f'open(sys.argv[1], \'w\'))" "{argv_file}" "$@"\nexec "{sys.executable}" -m netlint "$@"\n')
        shim.chmod(0o755)
        (bindir / "python").unlink(missing_ok=True)
        (bindir / "python").symlink_to(sys.executable)
    output, summary = tmp_path / "github_output", tmp_path / "step_summary"
    output.write_text("")
    summary.write_text("")
    env = {**os.environ, **_env(step, inputs, runner_temp), "GITHUB_ACTIONS": "true", "RUNNER_OS": "Linux",
           "RUNNER_TEMP": str(runner_temp), "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary),
           "PYTHONPATH": str(ROOT)}
    env.pop("GITHUB_WORKSPACE", None)
    if workspace is not None:
        env["GITHUB_WORKSPACE"] = str(workspace)
    workdir = tmp_path
    if "working-directory" in step:
        workdir = tmp_path / EXPR.sub(lambda m: inputs.get("working-directory", "."), step["working-directory"])
    script = tmp_path / "step.sh"  # GitHub writes the run text to a file and runs this command on it
    script.write_text(step["run"])
    argv_file.unlink(missing_ok=True)
    proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=workdir,
                          env=env, capture_output=True, text=True, timeout=300)
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    return {"rc": proc.returncode, "log": proc.stdout + proc.stderr, "outputs": outputs,
            "summary": summary.read_text(), "argv": json.loads(argv_file.read_text()) if argv_file.exists() else None}


def _lint(tmp_path, inputs, workspace=None):
    return _run(tmp_path, "lint", inputs, workspace)


def test_multiline_args_quoted_path_and_globstar(tmp_path):
    repo = copy_examples(tmp_path / "repo")
    (repo / "my jobs").mkdir()
    shutil.copy(repo / "nccl" / "train.env", repo / "my jobs" / "train.env")
    r = _lint(tmp_path, {"working-directory": "repo",
                         "paths": '"my jobs"\nswitches/**/*.yaml   nics/**/*.yaml\n',
                         "args": "--fail-on error   # only errors fail the job\n"
                                 "--select 'QOS,XC'\n"
                                 '--extend-select "NIC"\n'})
    argv = r["argv"]
    assert argv is not None, r["log"]
    assert argv[:2] == ["check", "--sarif-file"] and not Path(argv[2]).exists()  # a temporary, removed
    assert argv[3:] == ["--fail-on", "error", "--select", "QOS,XC", "--extend-select", "NIC", "--",
                        "my jobs", "switches/leaf02.yaml", "nics/gpu-nodes.yaml"]
    assert r["rc"] == 1 and r["outputs"] == {"exit-code": "1", "sarif-file": ""}, r["log"]
    assert re.search(r"^::error file=my jobs/train\.env,line=\d+,.*title=XC601 ", r["log"], re.M), r["log"]
    # the job summary counts per rule, from the same run
    summary = r["summary"]
    assert summary.startswith("### netlint\n") and "netlint exited 1: findings at or above the fail level" in summary
    assert re.search(r"^\| XC601 \| ib-tc-lossy-class \| error \| 1 \|$", summary, re.M), summary
    rows = {code: int(n) for code, n in re.findall(r"^\| ([A-Z]+\d+) \|.*\| (\d+) \|$", summary, re.M)}
    annotated = Counter(re.findall(r"^::\w+ file=.*?title=([A-Z]+\d+) ", r["log"], re.M))
    assert rows == dict(annotated) and len(rows) >= 3
    total = int(re.search(r"^\| \*\*Total\*\* \| \| \| \*\*(\d+)\*\* \|$", summary, re.M).group(1))
    assert total == sum(rows.values())


def test_globstar_spans_folders_and_quotes_keep_glob_characters(tmp_path):
    repo = copy_examples(tmp_path / "repo")
    (repo / "switches" / "a*b").mkdir()
    shutil.copy(repo / "switches" / "leaf02.yaml", repo / "switches" / "a*b" / "x.yaml")
    r = _lint(tmp_path, {"working-directory": "repo", "paths": "**/leaf*.yaml 'switches/a*b'/*.yaml",
                         "args": "--exit-zero"})
    assert r["argv"][r["argv"].index("--") + 1:] == ["switches/leaf02.yaml", "switches/a*b/x.yaml"], r["log"]
    assert r["rc"] == 0 and r["outputs"]["exit-code"] == "0"


def test_a_glob_matching_nothing_warns_and_nothing_to_lint_is_an_error(tmp_path):
    repo = copy_examples(tmp_path / "repo")
    r = _lint(tmp_path, {"working-directory": "repo", "paths": "nccl/*.env missing/**/*.yaml",
                         "args": "--exit-zero"})
    assert "::warning title=netlint action::paths: no file matches missing/**/*.yaml" in r["log"]
    assert r["argv"][-2:] == ["--", "nccl/train.env"] and r["rc"] == 0
    r = _lint(tmp_path, {"working-directory": "repo", "paths": "missing/**/*.yaml"})
    assert r["argv"] is None, "netlint must not fall back to linting the whole folder"
    assert r["rc"] == 2 and r["outputs"]["exit-code"] == "2"
    assert "::error title=netlint action::paths: nothing to lint" in r["log"]
    assert "netlint exited 2: usage or configuration error" in r["summary"]
    assert repo.is_dir()


def test_an_unterminated_quote_is_a_usage_error(tmp_path):
    copy_examples(tmp_path / "repo")
    r = _lint(tmp_path, {"working-directory": "repo", "args": "--select 'QOS"})
    assert r["argv"] is None and r["rc"] == 2 and r["outputs"]["exit-code"] == "2"
    assert "::error title=netlint action::input args: unterminated single quote" in r["log"]


def test_no_expansion_of_variables_or_commands(tmp_path):
    copy_examples(tmp_path / "repo")
    marker = tmp_path / "ran"
    r = _lint(tmp_path, {"working-directory": "repo", "paths": "nccl",
                         "args": f"--exit-zero --select $HOME,`id` --ignore $(touch${{IFS}}{marker})"})
    assert not marker.exists()
    assert r["argv"][3:7] == ["--exit-zero", "--select", "$HOME,`id`", "--ignore"]
    assert r["argv"][7] == f"$(touch${{IFS}}{marker})"


def test_lint_step_annotates_and_writes_sarif(tmp_path):
    copy_examples(tmp_path / "repo" / "infra")
    r = _lint(tmp_path, {"working-directory": "repo", "paths": "infra", "args": "--fail-on error",
                         "sarif-file": "netlint.sarif"}, workspace=tmp_path / "repo")
    assert r["rc"] == 1, r["log"]
    assert r["outputs"] == {"exit-code": "1", "sarif-file": "netlint.sarif"}
    assert r["argv"][:3] == ["check", "--sarif-file", "netlint.sarif"]
    assert not list((tmp_path / "repo").rglob(".netlint_cache"))  # nothing would keep it after the job
    # paths relative to the repository (GITHUB_WORKSPACE), not to infra/netlint.yaml
    annotated = re.findall(r"^::error file=([^,]*),", r["log"], re.M)
    assert annotated and all(f.startswith("infra/") for f in annotated)
    log = json.loads((tmp_path / "repo" / "netlint.sarif").read_text())
    assert log["runs"][0]["invocations"][0]["exitCode"] == 1
    assert all(res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith("infra/")
               for res in log["runs"][0]["results"])
    counted = int(re.search(r"^\| \*\*Total\*\* \| \| \| \*\*(\d+)\*\* \|$", r["summary"], re.M).group(1))
    assert counted == len(log["runs"][0]["results"])
    sarif_validator().validate(log)


def test_cache_key_step_keys_on_python_and_pins(tmp_path):
    r = _run(tmp_path, "cache-key", {})
    assert r["rc"] == 0, r["log"]
    version = ".".join(map(str, sys.version_info[:3]))
    assert re.fullmatch(rf"netlint-pip-Linux-{re.escape(version)}-[0-9a-f]{{16}}", r["outputs"]["key"])


# -- the example workflow -----------------------------------------------------------------------------

def test_example_workflow_uses_the_actions_inputs_and_runs(tmp_path):
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    steps = workflow["jobs"]["netlint"]["steps"]
    ours = next(s for s in steps if s["uses"].split("@")[0].endswith("/netlint"))
    assert set(ours["with"]) <= set(ACTION["inputs"])
    for step in steps:
        ref = step["uses"].split("@")[1]
        assert step is ours or re.fullmatch(r"[0-9a-f]{40}", ref), step["uses"]
    assert not re.search(r"@v\d", WORKFLOW.read_text(encoding="utf-8")), "netlint has no release tags"
    upload = next(s for s in steps if "upload-sarif" in s["uses"])
    assert upload["with"]["sarif_file"] == ours["with"]["sarif-file"]
    # its netlint step, through the action's scripts, on the example repository
    repo = copy_examples(tmp_path / "repo")
    r = _lint(tmp_path, {"working-directory": "repo", **ours["with"]}, workspace=repo)
    assert r["rc"] == 1 and r["outputs"]["sarif-file"] == "netlint.sarif", r["log"]
    given = r["argv"][r["argv"].index("--") + 1:]
    assert given == ["inventory.yaml", "switches", "nccl/train.env", "jobs/pretrain_gpt.sh"]
    assert r["argv"][3:r["argv"].index("--")] == ["--fail-on", "error", "--select", "QOS,XC,NCCL,JOB,NL"]
    assert (repo / "netlint.sarif").is_file() and "| **Total** |" in r["summary"]


def test_docs_name_no_tag_that_does_not_exist():
    tags = subprocess.run(["git", "-C", str(ROOT), "tag", "--list"], capture_output=True, text=True).stdout.split()
    for doc in (ROOT / "README.md", ROOT / "docs" / "integrations.md", WORKFLOW):
        for ref in re.findall(r"(?:netlint@|rev: )(\S+)", doc.read_text(encoding="utf-8")):
            assert ref in tags or not re.match(r"v\d", ref), f"{doc.name}: {ref} is not a tag of netlint"


# -- the pinned install ---------------------------------------------------------------------------------

CONSTRAINTS = ROOT / "constraints" / "action.txt"


def _pins() -> dict[str, str]:
    pins = {}
    for line in CONSTRAINTS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            m = re.fullmatch(r"([a-z0-9-]+)==([\w.]+)", line.strip())
            assert m, f"not an exact, normalised pin: {line!r}"
            pins[m.group(1)] = m.group(2)
    return pins


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_constraints_pin_every_runtime_dependency():
    import importlib.metadata as md
    import tomllib

    from packaging.requirements import Requirement
    from packaging.version import Version

    pins = _pins()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    direct = [Requirement(r) for r in project["project"]["dependencies"] + project["build-system"]["requires"]]
    for req in direct:
        assert _norm(req.name) in pins, f"{req.name} is not pinned in constraints/action.txt"
        assert Version(pins[_norm(req.name)]) in req.specifier, f"{req.name} pinned outside {req.specifier}"
    # what they need in turn (as far as this environment has them installed)
    todo, seen = [r for r in direct if _norm(r.name) not in ("setuptools", "wheel")], set()
    while todo:
        req = todo.pop()
        if (req.marker and not req.marker.evaluate({"extra": ""})) or _norm(req.name) in seen:
            continue
        seen.add(_norm(req.name))
        assert _norm(req.name) in pins, f"{req.name} (needed by netlint's dependencies) is not pinned"
        try:
            todo += [Requirement(r) for r in md.distribution(req.name).requires or []]
        except md.PackageNotFoundError:
            continue
    assert len(seen) >= 9


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("NETLINT_TEST_ACTION_INSTALL") != "1",
                    reason="installs from a package index (~30 s): set NETLINT_TEST_ACTION_INSTALL=1")
def test_install_step_gives_exactly_the_pinned_versions(tmp_path):
    r = _run(tmp_path, "Install netlint", {})
    assert r["rc"] == 0, r["log"]
    py = tmp_path / "runner" / "netlint-venv" / "bin" / "python"
    freeze = subprocess.run([str(py), "-m", "pip", "freeze", "--all"], capture_output=True, text=True).stdout
    installed = {_norm(n): v for n, v in re.findall(r"^([\w.-]+)==(\S+)$", freeze, re.M)}
    installed.pop("pip", None)
    assert installed == _pins()
    assert re.search(r"^netlint @ file://", freeze, re.M), freeze
    assert not (ROOT / "build").exists() or (ROOT / "build").stat().st_mtime < tmp_path.stat().st_mtime


# -- words.py, the splitter -------------------------------------------------------------------------------

def _words():
    import importlib.util

    spec = importlib.util.spec_from_file_location("action_words", ROOT / ".github" / "action" / "words.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("text,expected", [
    ("a  b\n\tc\n", [("a", ""), ("b", ""), ("c", "")]),
    ("'a b' \"c d\" e\\ f", [("a b", ""), ("c d", ""), ("e f", "")]),
    ("'' \"\"", [("", ""), ("", "")]),                              # empty words stay words
    ('"a\\"b\\\\c\\$d\\x"', [('a"b\\c$d\\x', "")]),                 # \\ escapes only \\ " $ ` in "…"
    ("a\\\nb", [("ab", "")]),                                       # backslash-newline joins
    ("x # a comment\ny#z", [("x", ""), ("y#z", "")]),               # # only at a word's start
    ("**/*.env 'a*'b* c\\?", [("**/*.env", "**/*.env"), ("a*b*", "a\\*b*"), ("c?", "")]),
    ("'[x]'/*", [("[x]/*", "\\[x\\]/*")]),
])
def test_words_split_like_a_shell(text, expected):
    assert _words().split(text) == expected


def test_words_unterminated_quotes_fail():
    for text in ("'a", '"a', '"a\\"'):
        with pytest.raises(ValueError):
            _words().split(text)
