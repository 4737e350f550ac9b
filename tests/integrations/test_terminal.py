"""Terminal habits (issue 15 point 8): colour, the progress line, --statistics, NETLINT_OUTPUT_FORMAT,
--stdin-filename, required-version, and the README's install lines."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from inttools import INVENTORY, ROOT, _not_on_github, cli, copy_examples, write  # noqa: F401
from netlint.terminal import Progress, use_color

ESC = "\033["
ERROR = INVENTORY + "fabrik: {}\n"  # NL004 at 4:1


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def _plain_env(monkeypatch):
    for name in ("NO_COLOR", "FORCE_COLOR", "NETLINT_OUTPUT_FORMAT"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("choice, tty, env, expected", [
    ("auto", True, {}, True),
    ("auto", False, {}, False),
    ("auto", True, {"NO_COLOR": "1"}, False),
    ("auto", True, {"NO_COLOR": ""}, True),          # no-color.org: only a non-empty value counts
    ("auto", False, {"FORCE_COLOR": "1"}, True),
    ("auto", True, {"TERM": "dumb"}, False),
    ("always", False, {"NO_COLOR": "1"}, True),     # the flag wins over the environment
    ("never", True, {"FORCE_COLOR": "1"}, False),
])
def test_use_color(choice, tty, env, expected):
    assert use_color(choice, Tty() if tty else io.StringIO(), env) is expected


def test_color_flag_and_no_color(tmp_path, capsys, monkeypatch):
    write(tmp_path, {"inventory.yaml": ERROR})
    rc, out, _ = cli(capsys, "check", "--format", "text", "--color", "always", tmp_path)
    assert rc == 1 and f"{ESC}1;31mNL004{ESC}0m" in out
    rc, out, _ = cli(capsys, "check", "--format", "text", tmp_path)       # captured stdout: no TTY
    assert rc == 1 and ESC not in out and ":4:1: NL004 [error]" in out
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert ESC in cli(capsys, "check", "--format", "text", tmp_path)[1]
    monkeypatch.setenv("NO_COLOR", "1")
    assert ESC not in cli(capsys, "check", "--format", "text", tmp_path)[1]
    monkeypatch.delenv("NO_COLOR")
    cli(capsys, "check", "--format", "text", "-o", tmp_path / "report.txt", tmp_path)
    assert ESC not in (tmp_path / "report.txt").read_text()                # a file: only with always
    assert ESC not in cli(capsys, "check", "--format", "json", "--color", "always", tmp_path)[1]


def test_progress_line_after_the_delay_on_a_terminal_only():
    now = [0.0]
    tty = Tty()
    progress = Progress(tty, delay=2.0, clock=lambda: now[0])
    progress.tick(1.9)
    assert tty.getvalue() == ""
    progress.tick(3.2)
    assert tty.getvalue() == "\r\033[Knetlint: checking... 3 s"
    progress.clear()
    assert tty.getvalue().endswith("\r\033[K") and not progress.drawn
    piped = io.StringIO()
    quiet = Progress(piped, delay=2.0, clock=lambda: now[0])
    quiet.tick(60.0)
    with quiet:
        pass
    assert piped.getvalue() == "" and quiet._thread is None


def test_statistics_replace_the_findings(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY + "fabrik: {}\nfabrak: {}\ncluster: d\n"})
    rc, out, _ = cli(capsys, "check", "--format", "text", "--statistics", tmp_path)
    assert rc == 1
    assert out.splitlines() == ["    2  NL004      unknown-key", "    1  NL009      duplicate-key",
                                "Found 3 findings (2 errors, 1 warning) in 1 file."]


def test_output_format_from_the_environment(tmp_path, capsys, monkeypatch):
    write(tmp_path, {"inventory.yaml": ERROR})
    monkeypatch.setenv("NETLINT_OUTPUT_FORMAT", "json")
    rc, out, _ = cli(capsys, "check", tmp_path)
    assert rc == 1 and [f["code"] for f in json.loads(out)["findings"]] == ["NL004"]
    rc, out, _ = cli(capsys, "check", "--format", "text", tmp_path)      # the flag wins
    assert ":4:1: NL004" in out
    monkeypatch.setenv("NETLINT_OUTPUT_FORMAT", "xml")
    rc, out, err = cli(capsys, "check", tmp_path)
    assert rc == 2 and out == ""
    assert err == "netlint: error: NETLINT_OUTPUT_FORMAT='xml' is not a format (text, json, sarif, github)\n"


def _stdin(cwd, text: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "netlint", "check", "--format", "json", *args],
                          cwd=cwd, input=text, capture_output=True, text=True, timeout=300)


def test_stdin_filename_lints_the_buffer_with_the_repository_as_context(tmp_path):
    repo = copy_examples(tmp_path / "repo")
    env = repo / "nccl" / "train.env"
    on_disk = env.read_text()
    assert "NCCL_IB_TC=41" in on_disk
    # the buffer fixed, the disk not: nothing to report for it
    run = _stdin(repo, on_disk.replace("NCCL_IB_TC=41", "NCCL_IB_TC=105"), "--stdin-filename", "nccl/train.env")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["findings"] == []
    # the buffer broken: XC601 needs the inventory and the switch (context read from disk)
    run = _stdin(repo, on_disk, "--stdin-filename", "nccl/train.env")
    found = json.loads(run.stdout)["findings"]
    assert run.returncode == 1
    assert [(f["code"], f["file"], f["line"], f["column"]) for f in found] == [("XC601", "nccl/train.env", 7, 12)]
    assert env.read_text() == on_disk


def test_stdin_filename_refuses_fix(tmp_path):
    repo = copy_examples(tmp_path / "repo")
    run = _stdin(repo, "", "--stdin-filename", "nccl/train.env", "--fix")
    assert run.returncode == 2 and run.stderr.startswith("netlint: error: --stdin-filename")


@pytest.mark.parametrize("spec, ok", [(">=0.1", True), (">=99", False), ("0.1.0", True), ("0.0.9", False),
                                      (">=0.1,<1", True), ("<0.1", False)])
def test_required_version(tmp_path, capsys, spec, ok):
    write(tmp_path, {"inventory.yaml": ERROR, "netlint.yaml": f"exclude: []\nrequired-version: \"{spec}\"\n"})
    rc, out, err = cli(capsys, "check", tmp_path)
    if ok:
        assert rc == 1 and "NL004" in out
    else:
        assert rc == 2 and out == ""
        assert err == f"{tmp_path / 'netlint.yaml'}:2:1: NL008 this configuration requires netlint " \
                      f"{spec if spec[0] in '<>=' else '==' + spec}; this is netlint 0.1.0\n"


def test_required_version_that_is_not_a_specifier(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY, "netlint.yaml": "required-version: \"==banana\"\n"})
    rc, _, err = cli(capsys, "check", tmp_path)
    assert rc == 2 and "NL008 required-version '==banana' is not a version specifier" in err


def test_required_version_without_packaging():
    from netlint.version_check import _unmet_simple

    assert _unmet_simple(">=0.2", "0.1.0") == "this configuration requires netlint >=0.2; this is netlint 0.1.0"
    assert _unmet_simple(">=0.1, <1", "0.1.0") is None
    assert _unmet_simple("==0.1", "0.1.0") is None         # 0.1 is 0.1.0
    assert _unmet_simple("!=0.1.0", "0.1.0") is not None
    assert "without the 'packaging' library" in _unmet_simple("~=0.1", "0.1.0")


def test_readme_says_python_and_shows_a_venv():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = [ln.strip() for ln in text.splitlines() if ln.startswith("    ")][:2]
    assert commands == ["pip install -e . && netlint check examples/",
                        "pip install -e '.[dev]' && python -m pytest"]
    assert "Python ≥ 3.11" in text
    assert "python3 -m venv .venv && . .venv/bin/activate" in text
