"""Fixes that do not settle are never written: a fix that is not idempotent is dropped (and the rest
applied), a run past the runaway limit writes nothing for the files still changing. The two real
cases of issue 13: NCCL322 on `readonly` and JOB430 on a ds_config the job builder reads from disk."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from netlint.cli import main
from netlint.engine import Options
from netlint.fix import run_fixes
from netlint.fix.loop import NOT_IDEMPOTENT
from tests.conftest import write_repo
from tests.fix.fixtools import fix_rules, replace_text, span_at  # noqa: F401 (fixture)


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    """Messages name files from the current directory (netlint.display): run from the test's repo."""
    monkeypatch.chdir(tmp_path)


def synthetic(*paths: Path) -> Options:
    return Options(paths=list(paths), select=["ZZ"], jobs=1)


def grow(name: str):
    """The same finding after every fix: its fix appends a line each time (not idempotent)."""
    from netlint.findings import Edit, Finding, Fix

    def make(ws):
        text = ws.text(name)
        s = span_at(name, text, len(text), len(text))
        yield Finding("ZZ901", "needs one more line", s, fix=Fix("grow", (Edit(s, "#\n"),)), key="grow")
    return make


def test_a_fix_that_is_not_idempotent_is_dropped_and_the_others_applied(tmp_path, fix_rules):
    write_repo(tmp_path, {"g.env": "NCCL_IB_TIMOUT=22\n"})
    fix_rules.append(grow("g.env"))
    fix_rules.append(replace_text("g.env", "TIMOUT", "TIMEOUT", code="ZZ903"))
    run = run_fixes(synthetic(tmp_path / "g.env"))
    assert (tmp_path / "g.env").read_text() == "NCCL_IB_TIMEOUT=22\n"
    assert [a.finding.code for a in run.landed()] == ["ZZ903"]
    assert [(s.finding.code, s.reason) for s in run.skipped] == [("ZZ901", NOT_IDEMPOTENT)]
    assert run.converged and run.written == ["g.env"]


def test_cli_says_which_fix_was_dropped(tmp_path, fix_rules, capsys):
    write_repo(tmp_path, {"g.env": "A=1\n"})
    fix_rules.append(grow("g.env"))
    code = main(["check", "--select", "ZZ", "--fix", str(tmp_path / "g.env")])
    out, err = capsys.readouterr()
    assert "fix not applied: g.env:2:1: ZZ901: not idempotent: after this fix the finding is still there" in err
    assert out.endswith("0 fixes applied.\n") and code == 1  # the finding is still there
    assert (tmp_path / "g.env").read_text() == "A=1\n"


# -- NCCL322 on `readonly NAME=v` --------------------------------------------------------------------
# Before: the fix inserted `export ` after `readonly` ten times (`readonly export export … NCCL_DEBUG`,
# a read-only variable named `export`), hit the runaway limit and wrote the file anyway; every run
# added ten more.

READONLY = "#!/bin/bash\nreadonly NCCL_DEBUG=WARN\ntorchrun train.py\n"


def nccl322(path: Path) -> Options:
    return Options(paths=[path], select=["NCCL322"], jobs=1)


def test_nccl322_on_readonly_exports_the_name_once(tmp_path):
    write_repo(tmp_path, {"run.sh": READONLY})
    run = run_fixes(nccl322(tmp_path), unsafe=True)
    assert run.converged and run.passes == 1 and not run.notes and not run.unwritten
    assert (tmp_path / "run.sh").read_text() == ("#!/bin/bash\nexport NCCL_DEBUG; readonly NCCL_DEBUG=WARN\n"
                                                 "torchrun train.py\n")
    assert not run.report.findings
    again = run_fixes(nccl322(tmp_path), unsafe=True)
    assert not again.changes and not again.applied


def test_nccl322_fix_at_readonly_is_located_at_the_readonly_word(tmp_path):
    from netlint.engine import lint

    write_repo(tmp_path, {"run.sh": READONLY})
    (f,) = lint(nccl322(tmp_path)).findings
    (e,) = f.fix.edits
    assert (f.span.line, f.span.col) == (2, 10)
    assert (e.span.line, e.span.col, e.span.start, e.span.end) == (2, 1, 12, 12)
    assert e.replacement == "export NCCL_DEBUG; "


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_nccl322_readonly_fix_reaches_the_child_in_real_bash(tmp_path):
    write_repo(tmp_path, {"run.sh": READONLY})
    run_fixes(nccl322(tmp_path), unsafe=True)
    script = (tmp_path / "run.sh").read_text().replace("torchrun train.py", 'bash -c "echo child=$NCCL_DEBUG"')
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0 and out.stdout == "child=WARN\n"


@pytest.mark.parametrize("line", ["declare -r NCCL_DEBUG=WARN", "typeset NCCL_DEBUG=WARN",
                                  "readonly -a NCCL_DEBUG=WARN"])
def test_nccl322_offers_no_fix_when_the_assignment_is_an_argument(tmp_path, line):
    # before: `declare -r export NCCL_DEBUG=WARN`, `readonly -a export …`: `export` became an argument
    from netlint.engine import lint

    write_repo(tmp_path, {"run.sh": f"#!/bin/bash\n{line}\ntorchrun train.py\n"})
    (f,) = lint(nccl322(tmp_path)).findings
    assert f.code == "NCCL322" and f.span.line == 2 and f.fix is None


@pytest.mark.parametrize("line,fixed", [
    ("echo x; readonly NCCL_DEBUG=WARN", "echo x; export NCCL_DEBUG; readonly NCCL_DEBUG=WARN"),
    ("readonly \\\n  NCCL_DEBUG=WARN", "export NCCL_DEBUG; readonly \\\n  NCCL_DEBUG=WARN"),
    ("true && NCCL_DEBUG=WARN", "true && export NCCL_DEBUG=WARN"),
    ("  NCCL_DEBUG=WARN", "  export NCCL_DEBUG=WARN"),
])
def test_nccl322_fix_after_a_separator_or_a_continuation(tmp_path, line, fixed):
    write_repo(tmp_path, {"run.sh": f"#!/bin/bash\n{line}\ntorchrun train.py\n"})
    run = run_fixes(nccl322(tmp_path), unsafe=True)
    assert (tmp_path / "run.sh").read_text() == f"#!/bin/bash\n{fixed}\ntorchrun train.py\n"
    assert run.converged and not run.report.findings


def test_the_fixer_alone_stops_a_readonly_style_runaway(tmp_path, fix_rules):
    """Whatever a rule does: a fix whose finding survives it is dropped, and nothing is written."""
    from netlint.findings import Edit, Finding, Fix

    def export_again(ws):
        text = ws.text("r.sh")
        at = text.index("NCCL_DEBUG=")
        s = span_at("r.sh", text, at, at)
        yield Finding("ZZ901", "NCCL_DEBUG is not exported", s, key="NCCL_DEBUG",
                      fix=Fix("add export", (Edit(s, "export "),)))

    write_repo(tmp_path, {"r.sh": READONLY})
    fix_rules.append(export_again)
    run = run_fixes(synthetic(tmp_path / "r.sh"))
    assert (tmp_path / "r.sh").read_text() == READONLY
    assert [s.reason for s in run.skipped] == [NOT_IDEMPOTENT] and not run.changes


# -- JOB430 on a ds_config named by the launch -----------------------------------------------------
# Before: the job builder read `--deepspeed_config` from disk, so each re-lint saw the old
# `"train_batch_size": 1` at the same place and fixed it again: 1 -> 16 -> 166 -> … -> 16666666666
# (written at the runaway limit); the next --fix changed it to 16.

LAUNCH = """#!/bin/bash
torchrun --nnodes 2 --nproc_per_node 8 pretrain_gpt.py \\
  --tensor-model-parallel-size 1 --pipeline-model-parallel-size 1 \\
  --num-layers 24 --hidden-size 2048 --num-attention-heads 16 \\
  --seq-length 2048 --max-position-embeddings 2048 \\
  --micro-batch-size 1 --bf16 \\
  --deepspeed --deepspeed_config ds.json
"""
DS = '{\n  "train_batch_size": %s,\n  "train_micro_batch_size_per_gpu": 1,\n  "gradient_accumulation_steps": 1\n}\n'


def test_job430_fix_is_idempotent_when_the_old_value_prefixes_the_new(tmp_path):
    write_repo(tmp_path, {"train.sh": LAUNCH, "ds.json": DS % 1})
    opts = Options(paths=[tmp_path], select=["JOB430"], jobs=1)
    run = run_fixes(opts, unsafe=True)
    assert (tmp_path / "ds.json").read_text() == DS % 16
    assert run.converged and run.passes == 1 and [a.finding.code for a in run.landed()] == ["JOB430"]
    assert not run.report.findings  # the re-lint read the fixed ds.json
    again = run_fixes(opts, unsafe=True)
    assert not again.changes and not again.applied and (tmp_path / "ds.json").read_text() == DS % 16


def test_overlay_serves_path_reads(tmp_path):
    from netlint.fix.files import key, overlay

    p = tmp_path / "x.json"
    p.write_bytes(b"old\r\n")
    with overlay({key(p): b"new\r\n"}):
        assert p.read_bytes() == b"new\r\n" and p.read_text(encoding="utf-8") == "new\n"
    assert p.read_bytes() == b"old\r\n"
