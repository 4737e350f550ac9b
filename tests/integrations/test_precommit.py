"""The real pre-commit: `pre-commit try-repo <this repo> netlint` against a git repo built from examples/.

Slow (pre-commit installs netlint into its own virtualenv once per module); it still runs in .ci/run.
try-repo uses the hook repository's HEAD. When this checkout has uncommitted changes, the tests build a
throw-away clone holding the working tree as it is (what try-repo itself does, once instead of per call),
so the environment is installed once and the hooks run the code under test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from inttools import EXAMPLES, INVENTORY, ROOT

pytestmark = pytest.mark.slow

GIT_ENV = {"GIT_AUTHOR_NAME": "netlint tests", "GIT_AUTHOR_EMAIL": "tests@netlint.invalid",
           "GIT_COMMITTER_NAME": "netlint tests", "GIT_COMMITTER_EMAIL": "tests@netlint.invalid"}
FAULTY_ENV = "NCCL_DEBUGG=WARN\n"                 # NCCL301: not an NCCL variable
CLEAN_ENV = "NCCL_DEBUG=WARN\n"
STALE_SUPPRESSION = "NCCL_DEBUG=WARN  # netlint: disable=NCCL301 -- was NCCL_DEBUGG\n"  # NL020, safe fix


def _git(cwd, *args, check=True) -> subprocess.CompletedProcess:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=check)


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory):
    """A git repository with this checkout's hooks and code committed at HEAD."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        pytest.skip("pre-commit is not installed (pip install -e '.[dev]')")
    if _git(ROOT, "rev-parse", "--git-dir", check=False).returncode != 0:
        pytest.skip("this checkout is not a git repository")
    tracked = _git(ROOT, "ls-files", "--error-unmatch", ".pre-commit-hooks.yaml", check=False)
    assert tracked.returncode == 0, ".pre-commit-hooks.yaml must be committed: try-repo reads HEAD"
    dirty = _git(ROOT, "status", "--porcelain").stdout.strip()
    if not dirty:
        return ROOT
    shadow = tmp_path_factory.mktemp("hook-repo") / "netlint"
    _git(ROOT.parent, "clone", "-q", "--no-hardlinks", str(ROOT), str(shadow))
    listed = _git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard").stdout.split("\0")
    for rel in filter(None, listed):
        src, dst = ROOT / rel, shadow / rel
        if src.is_file():
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
        elif dst.exists():
            dst.unlink()  # deleted in the working tree
    _git(shadow, "add", "-A")
    _git(shadow, "commit", "-q", "--no-verify", "-m", "working tree under test")
    return shadow


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory):
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def target(tmp_path):
    """A git repo built from examples/ plus a faulty env file of our own."""
    repo = tmp_path / "infra"
    shutil.copytree(EXAMPLES, repo, ignore=shutil.ignore_patterns(".netlint_cache"))
    (repo / "nccl").mkdir(exist_ok=True)
    (repo / "nccl" / "lab.env").write_text(FAULTY_ENV)
    (repo / "README.md").write_text("# infra repo\n")
    _git(tmp_path, "init", "-q", str(repo))
    _commit(repo, "examples")
    return repo


def _commit(repo, message: str) -> None:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "--no-verify", "--allow-empty", "-m", message)


def _env(home) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PRE_COMMIT"))}
    env.update(GIT_ENV, PRE_COMMIT_HOME=str(home))
    return env


def _pre_commit(repo, home, *args) -> tuple[int, str]:
    proc = subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=repo, env=_env(home),
                          capture_output=True, text=True, timeout=900)
    out = proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), out  # 3 = pre-commit's own unexpected error
    return proc.returncode, out


def _files_args(files) -> list[str]:
    return ["--files", *files] if files else ["--all-files"]


def try_repo(hook_repo, home, repo, hook: str, *files: str) -> tuple[int, str]:
    """``pre-commit try-repo``: what a hook author runs. It installs a fresh environment every call
    (its store is a temporary directory), so the other tests use :func:`run_hook`."""
    return _pre_commit(repo, home, "try-repo", str(hook_repo), hook, "--verbose", *_files_args(files))


def run_hook(hook_repo, home, repo, hook: str, *files: str) -> tuple[int, str]:
    """``pre-commit run`` with a config naming this repository at its HEAD, as a user's
    .pre-commit-config.yaml would; the environment is installed once per module."""
    import yaml

    rev = _git(hook_repo, "rev-parse", "HEAD").stdout.strip()
    config = repo.parent / "pre-commit-config.yaml"
    config.write_text(yaml.safe_dump({"repos": [{"repo": str(hook_repo), "rev": rev,
                                                  "hooks": [{"id": hook}]}]}))
    return _pre_commit(repo, home, "run", "--config", str(config), hook, "--verbose", *_files_args(files))


def _finding_lines(out: str) -> list[str]:
    """`path:line:col: CODE ...` lines of netlint's text output."""
    return [ln for ln in out.splitlines() if ln and not ln.startswith(" ") and ": " in ln
            and ln.split(":", 1)[0].rsplit(".", 1)[-1] in ("yaml", "yml", "json", "env", "sh", "conf", "toml")]


def _clean_up(repo) -> list[str]:
    """"Fix" the repo: replace a faulty inventory with a clean one naming no switch, delete every other
    file netlint still reports, until nothing is reported (examples/ changes; this does not care how)."""
    from netlint.engine import Options, lint

    replaced: list[str] = []
    for _ in range(10):
        report = lint(Options(paths=[repo], jobs=1))
        files = sorted({f.file for f in report.findings if not f.suppressed})
        if not files:
            return replaced
        for rel in files:
            if rel == (report.workspace.inventory_file or "inventory.yaml"):
                (repo / rel).write_text(INVENTORY)
            else:
                (repo / rel).unlink(missing_ok=True)
            replaced.append(rel)
    raise AssertionError(f"still findings after replacing or deleting {replaced}")


def test_try_repo_fails_on_faulty_files_and_passes_once_fixed(hook_repo, pre_commit_home, target):
    # every file: the examples carry real faults, and so does nccl/lab.env
    rc, out = try_repo(hook_repo, pre_commit_home, target, "netlint")
    assert rc == 1, out
    assert "nccl/lab.env:1:1: NCCL301" in out
    assert any(ln.startswith("switches/") for ln in _finding_lines(out)), out
    # fixed: lab.env corrected; the examples' faulty files replaced by clean ones or deleted
    (target / "nccl" / "lab.env").write_text(CLEAN_ENV)
    replaced = _clean_up(target)
    assert "nccl/lab.env" not in replaced
    _commit(target, "fix")
    rc, out = try_repo(hook_repo, pre_commit_home, target, "netlint")
    assert rc == 0, out
    assert "Passed" in out and "no files to check" not in out and "NCCL301" not in out


def test_staged_files_only(hook_repo, pre_commit_home, target):
    # pre-commit passes only the staged files: netlint reports on those alone
    rc, out = run_hook(hook_repo, pre_commit_home, target, "netlint", "nccl/lab.env", "README.md")
    assert rc == 1, out
    lines = _finding_lines(out)
    assert lines and all(ln.startswith("nccl/lab.env:") for ln in lines), out
    assert "NCCL301" in out
    # fixed: the staged file passes although other files of the repository still have findings
    (target / "nccl" / "lab.env").write_text(CLEAN_ENV)
    _commit(target, "fix the typo")
    rc, out = run_hook(hook_repo, pre_commit_home, target, "netlint", "nccl/lab.env")
    assert rc == 0, out
    rc, out = run_hook(hook_repo, pre_commit_home, target, "netlint")
    assert rc == 1, out


def test_staged_inventory_reports_what_involves_it(hook_repo, pre_commit_home, target):
    # findings elsewhere whose rule reads the inventory and relate to it (QOS108: the fabric MTU)
    rc, out = run_hook(hook_repo, pre_commit_home, target, "netlint", "inventory.yaml")
    _, full = run_hook(hook_repo, pre_commit_home, target, "netlint")
    lines = _finding_lines(out)
    assert rc == 1 and any(ln.startswith("switches/leaf01/config_db.json:13:50: QOS108") for ln in lines), out
    assert set(lines) < set(_finding_lines(full)) and not any(ln.startswith("jobs/") for ln in lines), out


def test_staged_switch_does_not_report_the_jobs(hook_repo, pre_commit_home, target):
    rc, out = run_hook(hook_repo, pre_commit_home, target, "netlint", "switches/leaf01/config_db.json")
    lines = _finding_lines(out)
    assert rc == 1 and any(ln.startswith("nccl/train.env:7:12: XC601") for ln in lines), out
    assert not any(ln.startswith("jobs/") or " JOB4" in ln for ln in lines), out


def test_fix_hook(hook_repo, pre_commit_home, target):
    (target / "nccl" / "lab.env").write_text(STALE_SUPPRESSION)
    _commit(target, "stale suppression")
    rc, out = run_hook(hook_repo, pre_commit_home, target, "netlint-fix", "nccl/lab.env")
    assert rc == 1, out  # pre-commit fails a hook that changed files
    assert "files were modified by this hook" in out
    assert (target / "nccl" / "lab.env").read_text() == CLEAN_ENV
    _commit(target, "apply netlint's fix")
    rc, out = run_hook(hook_repo, pre_commit_home, target, "netlint-fix", "nccl/lab.env")
    assert rc == 0, out


@pytest.fixture(scope="module")
def pre_commit_hooks_yaml_ok():
    import yaml

    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == {"netlint", "netlint-fix"}
    assert hooks["netlint"]["entry"].startswith("netlint check")
    assert "--fix" in hooks["netlint-fix"]["entry"]
    for h in hooks.values():
        assert h["language"] == "python" and h["require_serial"] is True
        assert "--force-exclude" in h["entry"]
    return hooks


def test_hooks_file(pre_commit_hooks_yaml_ok):
    assert json.dumps(pre_commit_hooks_yaml_ok)
