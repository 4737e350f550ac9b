"""The cyclic GC during a check (issue 14): off for the run, frozen at the end only as a program."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

from netlint.cli import main

ENV_FILE = "NCCL_IB_HCA=mlx5_0\nNCCL_DEBUG=INFO\n"


def test_in_process_run_leaves_the_collector_as_it_was(tmp_path: Path, monkeypatch, capsys):
    (tmp_path / "job.env").write_text(ENV_FILE, encoding="utf-8")
    seen = []
    real_lint = __import__("netlint.engine", fromlist=["lint"]).lint

    def spy(opts):
        seen.append(gc.isenabled())
        return real_lint(opts)

    monkeypatch.setattr("netlint.engine.lint", spy)
    frozen = gc.get_freeze_count()
    assert gc.isenabled()
    main(["check", str(tmp_path), "--format", "json"])
    capsys.readouterr()
    assert seen == [False]              # off while the run builds its objects
    assert gc.isenabled()               # back on afterwards
    assert gc.get_freeze_count() == frozen  # nothing frozen by a call from a longer-lived process


def test_as_a_program_what_is_alive_at_exit_is_frozen(tmp_path: Path):
    (tmp_path / "job.env").write_text(ENV_FILE, encoding="utf-8")
    probe = ("import atexit, gc, sys\n"
             "atexit.register(lambda: sys.stderr.write(f'frozen={gc.get_freeze_count()} on={gc.isenabled()}\\n'))\n"
             "from netlint.cli import main\n"
             "sys.argv = ['netlint', 'check', sys.argv[1], '--format', 'json']\n"
             "raise SystemExit(main())\n")
    proc = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True)
    assert proc.returncode in (0, 1), proc.stderr
    line = proc.stderr.strip().splitlines()[-1]
    count = int(line.split()[0].split("=")[1])
    assert count > 1000 and line.endswith("on=True")
