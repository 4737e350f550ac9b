"""Errors are errors (issue 15 point 5): an output netlint cannot write, a config that is not a
regular file, a bad --jobs are one line on stderr and exit 2 — no traceback, no hang, no folder
created unasked."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from inttools import INVENTORY, _not_on_github, cli, write  # noqa: F401


def netlint(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    # the timeout only stops a hang from blocking the suite; nothing is asserted about time
    return subprocess.run([sys.executable, "-m", "netlint", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL)


def one_error(run: subprocess.CompletedProcess) -> str:
    assert run.returncode == 2, (run.returncode, run.stderr)
    assert "Traceback" not in run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.parametrize("flag", ["-o", "--output-file", "--sarif-file", "--write-baseline"])
def test_output_into_a_missing_folder(tmp_path, flag):
    write(tmp_path, {"inventory.yaml": INVENTORY})
    line = one_error(netlint(tmp_path, "check", ".", flag, "missing/dir/x"))
    assert line.startswith("netlint: error: ") and "missing/dir/x" in line
    assert "folder missing/dir does not exist" in line
    assert not (tmp_path / "missing").exists()       # no folder made unasked


def test_output_that_is_a_folder(tmp_path):
    write(tmp_path, {"inventory.yaml": INVENTORY})
    (tmp_path / "out").mkdir()
    line = one_error(netlint(tmp_path, "check", ".", "--sarif-file", "out"))
    assert line == "netlint: error: --sarif-file out: is a folder; give a file name"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
def test_output_that_fails_while_writing(tmp_path):
    """/dev/full accepts the open and fails the write (ENOSPC), as a full disk would."""
    write(tmp_path, {"inventory.yaml": INVENTORY})
    line = one_error(netlint(tmp_path, "check", ".", "-o", "/dev/full"))
    assert line.startswith("netlint: error: cannot write --output-file /dev/full: ")
    assert "space" in line.lower()


def test_write_baseline_does_not_make_folders(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY + "fabrik: {}\n"})
    rc, _, err = cli(capsys, "check", tmp_path, "--write-baseline", tmp_path / "ci" / "baseline.json")
    assert rc == 2 and not (tmp_path / "ci").exists()
    (tmp_path / "ci").mkdir()
    rc, _, err = cli(capsys, "check", tmp_path, "--write-baseline", tmp_path / "ci" / "baseline.json")
    assert rc == 0 and (tmp_path / "ci" / "baseline.json").is_file()


@pytest.mark.parametrize("config", ["/dev/null", "fifo"])
def test_config_that_is_not_a_regular_file(tmp_path, config):
    write(tmp_path, {"inventory.yaml": INVENTORY})
    if config == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs on this system")
        os.mkfifo(tmp_path / "fifo")
    run = netlint(tmp_path, "check", "inventory.yaml", "--config", config)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "NL008 cannot read config:" in run.stderr and "not a regular file" in run.stderr


@pytest.mark.parametrize("jobs", ["0", "-3"])
def test_jobs_below_one(tmp_path, jobs):
    write(tmp_path, {"inventory.yaml": INVENTORY})
    assert one_error(netlint(tmp_path, "check", ".", "--jobs", jobs)) == \
        f"netlint: error: --jobs must be 1 or more (got {jobs})"
