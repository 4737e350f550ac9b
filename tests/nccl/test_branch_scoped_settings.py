"""A setting inside an ``if`` netlint cannot decide is judged when a launch of ranks follows it in the
same branch (whenever that launch runs, the setting was made first); elsewhere it stays unjudged."""

from __future__ import annotations

from conftest import at, lint_repo, only


def _314(report):
    return [at(f) for f in report.findings if f.code == "NCCL314"]


def test_export_and_mpirun_in_the_same_undecided_branch(tmp_path):
    report = lint_repo(tmp_path, {"run.sh": """\
        #!/bin/bash
        if [[ "${NODE_RANK}" -eq "0" ]]; then
            export NCCL_DEBUG="INFO"
            mpirun -x NCCL_DEBUG="${NCCL_DEBUG}" -x NCCL_DEBUG_SUBSYS=INIT python train.py
        fi
        """})
    # once, at the export: `-x NCCL_DEBUG="${NCCL_DEBUG}"` passes the same value on, no second setting
    f = only(report, "NCCL314")
    assert at(f) == (3, 23) and f.fix is not None and f.fix.edits[0].span.line == 3


def test_launch_outside_or_in_another_branch_keeps_it_unjudged(tmp_path):
    report = lint_repo(tmp_path, {
        "after.sh": """\
            #!/bin/bash
            if [ -n "$DEBUG" ]; then
                export NCCL_DEBUG=INFO
            fi
            mpirun ./all_gather_perf
            """,
        "other.sh": """\
            #!/bin/bash
            if [ -n "$DEBUG" ]; then
                export NCCL_DEBUG=INFO
            else
                mpirun ./all_gather_perf
            fi
            """,
        "before.sh": """\
            #!/bin/bash
            if [ -n "$DEBUG" ]; then
                mpirun ./all_gather_perf
                export NCCL_DEBUG=INFO
            fi
            """})
    assert _314(report) == []


def test_launcher_options_in_a_branch_hold_for_that_launch(tmp_path):
    report = lint_repo(tmp_path, {"run.sh": """\
        #!/bin/bash
        if [ "$RANK" = 0 ]; then
            NCCL_DEBUG=INFO srun ./train
            mpirun -x NCCL_DEBUG=TRACE ./all_reduce_perf
        fi
        """})
    assert sorted(_314(report)) == [(3, 16), (4, 26)]
