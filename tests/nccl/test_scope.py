"""Which env applies to which job: sourced files, env files in the same directory or above."""

from __future__ import annotations

from dataclasses import dataclass

from conftest import lint_repo
from netlint.nccl import scope


@dataclass
class FakeJob:
    file: str


FILES = {
    "nccl.conf": "NCCL_IB_TC=106\nNCCL_DEBUG=VERSION\n",
    "jobs/base.env": "NCCL_DEBUG=WARN\nNCCL_SOCKET_IFNAME=ens\n",
    "jobs/llama/vars.sh": "export NCCL_IB_QPS_PER_CONNECTION=4\n",
    "jobs/llama/train.sh": "#!/bin/bash\nsource ../common.sh\nexport NCCL_DEBUG=INFO\ntorchrun pretrain.py\n",
    "jobs/common.sh": "export NCCL_IB_HCA=mlx5\n",
    "jobs/llama/launch.sh": "#!/bin/bash\nexport NCCL_ALGO=Ring\nsrun python x.py\n",
    "other/run.sh": "#!/bin/bash\nexport NCCL_PROTO=Simple\npython y.py\n",
}


def _ws(tmp_path):
    report = lint_repo(tmp_path, FILES)
    ws = report.workspace
    ws.jobs = [FakeJob("jobs/llama/train.sh"), FakeJob("other/run.sh")]
    ws.cache.clear()
    return ws


def test_envs_for_job_order_and_effective_values(tmp_path):
    ws = _ws(tmp_path)
    group = scope.envs_for_job(ws, ws.jobs[0])
    # nccl.conf lowest, then env files from far to near, the job's own file (with its sources) last;
    # the sibling launch.sh runs a program, so it is not an env file for train.sh.
    assert [e.file for e in group] == ["nccl.conf", "jobs/base.env", "jobs/llama/vars.sh", "jobs/llama/train.sh"]
    eff = scope.effective(group)
    assert eff["NCCL_DEBUG"].known == "INFO" and eff["NCCL_DEBUG"].file == "jobs/llama/train.sh"
    assert eff["NCCL_IB_TC"].file == "nccl.conf"
    assert eff["NCCL_IB_HCA"].file == "jobs/common.sh"          # sourced, inlined in train.sh's env
    assert eff["NCCL_IB_QPS_PER_CONNECTION"].known == "4"
    assert "NCCL_ALGO" not in eff


def test_jobs_for_env(tmp_path):
    ws = _ws(tmp_path)
    by_file = {e.file: e for e in scope.envs(ws)}
    assert [j.file for j in scope.jobs_for_env(ws, by_file["jobs/base.env"])] == ["jobs/llama/train.sh"]
    assert [j.file for j in scope.jobs_for_env(ws, by_file["nccl.conf"])] == ["jobs/llama/train.sh", "other/run.sh"]
    assert [j.file for j in scope.jobs_for_env(ws, by_file["jobs/common.sh"])] == ["jobs/llama/train.sh"]
    assert scope.jobs_for_env(ws, by_file["jobs/llama/launch.sh"]) == []


def test_launch_groups_without_and_with_jobs(tmp_path):
    report = lint_repo(tmp_path, FILES)
    ws = report.workspace
    ws.jobs = []
    ws.cache.clear()
    anchors = sorted(a.file for a, _ in scope.launch_groups(ws))
    assert "jobs/common.sh" not in anchors            # sourced: judged inside train.sh
    assert {"jobs/llama/train.sh", "jobs/llama/launch.sh", "other/run.sh"} <= set(anchors)
    ws = _ws(tmp_path)
    anchors = [a.file for a, _ in scope.launch_groups(ws)]
    assert anchors[:2] == ["jobs/llama/train.sh", "other/run.sh"]
    assert "jobs/llama/launch.sh" in anchors           # a launch no job model took in


def test_assignments_are_unique_and_prefer_their_own_file(tmp_path):
    ws = _ws(tmp_path)
    pairs = [(e.file, v.file, v.key) for e, v in scope.assignments(ws) if v.key == "NCCL_IB_HCA"]
    assert pairs == [("jobs/common.sh", "jobs/common.sh", "NCCL_IB_HCA")]
