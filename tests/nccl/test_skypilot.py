"""SkyPilot task YAML: the NCCL settings of its setup/run scripts are read and located in the YAML; the
training launch in run is said unread (left open since round 14: SkyPilot tasks were not read)."""

from __future__ import annotations

from conftest import at, lint_repo

TASK = """\
name: train
resources:
  accelerators: H100:8
num_nodes: 2
envs:
  NCCL_DEBUG: WARN
setup: |
  pip install -r requirements.txt
run: |
  export NCCL_ALGO=Ringg
  torchrun --nnodes=$SKYPILOT_NUM_NODES --nproc_per_node=8 train.py
"""


def test_the_run_script_is_read_and_located_and_the_launch_said_unread(tmp_path):
    report = lint_repo(tmp_path, {"sky/train.yaml": TASK})
    assert [(f.code, *at(f)) for f in report.findings] == [("NCCL303", 10, 20), ("NL012", 11, 3)]
    (nl012,) = [f for f in report.findings if f.code == "NL012"]
    assert "SkyPilot task" in nl012.message and nl012.severity.name == "INFO"


def test_yaml_with_a_run_key_that_is_no_task_is_not_read_as_one(tmp_path):
    # a GitHub Actions workflow: `run:` sits in steps, the root has no resources/num_nodes
    workflow = "on: push\njobs:\n  t:\n    steps:\n      - run: export NCCL_ALGO=Ringg\n"
    compose_like = "run: |\n  export NCCL_ALGO=Ringg\n"
    report = lint_repo(tmp_path, {".github/workflows/ci.yaml": workflow, "other.yaml": compose_like})
    assert [f for f in report.findings if f.code in ("NCCL303", "NL012")] == []
