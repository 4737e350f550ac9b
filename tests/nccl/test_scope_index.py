"""The folder index behind ``scope.envs_for_file`` gives what the scan over every env gave (issue 14:
the scan asked ``job_files`` once per env per job, O(J²·E))."""

from __future__ import annotations

from dataclasses import dataclass

from conftest import lint_repo
from netlint.nccl import scope


@dataclass
class FakeJob:
    file: str


FILES = {
    "nccl.conf": "NCCL_IB_TC=106\n",
    ".env": "NCCL_DEBUG=WARN\n",
    "jobs/base.env": "NCCL_SOCKET_IFNAME=ens\n",
    "jobs/ll/near.env": "NCCL_IB_GID_INDEX=3\n",            # "jobs/ll" is a prefix of "jobs/llama" as text only
    "jobs/llama/vars.sh": "export NCCL_IB_QPS_PER_CONNECTION=4\n",
    "jobs/llama/nccl.conf": "NCCL_IB_TIMEOUT=22\n",
    "jobs/llama/train.sh": "#!/bin/bash\nsource ../common.sh\nexport NCCL_DEBUG=INFO\ntorchrun pretrain.py\n",
    "jobs/llama/deep/er/run.sh": "#!/bin/bash\nexport NCCL_ALGO=Ring\nsrun python x.py\n",
    "jobs/llama/deep/er/.env": "NCCL_PROTO=Simple\n",
    "jobs/common.sh": "export NCCL_IB_HCA=mlx5\n",
    "jobs/llama/launch.sh": "#!/bin/bash\nexport NCCL_ALGO=Ring\nsrun python x.py\n",
    "other/run.sh": "#!/bin/bash\nexport NCCL_PROTO=Simple\npython y.py\n",
    "other/vars.sh": "export NCCL_MIN_CTAS=4\n",
}

JOBS = ["jobs/llama/train.sh", "jobs/llama/deep/er/run.sh", "other/run.sh", "jobs/llama/vars.sh"]
PROBES = JOBS + ["run.sh", "jobs/ll/x.sh", "jobs/llama2/x.sh", "nowhere/a/b/c.sh", "jobs/base.env", "../up/x.sh"]


def _scan(ws, file):
    """The former scan: every env, asking is_env_file (and so job_files) each time."""
    all_envs = scope.envs(ws)
    own = [e for e in all_envs if e.file == file]
    inlined = {s.resolved for e in own for s in e.sources if s.resolved}
    job_dir = scope._dir(file)
    by_dir = [e for e in all_envs if e.file != file and e.file not in inlined
              and scope.is_env_file(ws, e) and scope._within(job_dir, scope._dir(e.file))]
    by_dir.sort(key=lambda e: (e.format != "nccl.conf", len(scope._dir(e.file)), e.file))
    return by_dir + own


def test_indexed_envs_for_file_equal_the_scan(tmp_path):
    ws = lint_repo(tmp_path, FILES).workspace
    ws.jobs = [FakeJob(f) for f in JOBS]
    ws.cache.clear()
    for file in PROBES:
        got = scope.envs_for_file(ws, file)
        assert [id(e) for e in got] == [id(e) for e in _scan(ws, file)], file
    deep = [e.file for e in scope.envs_for_file(ws, "jobs/llama/deep/er/run.sh")]
    assert deep == ["nccl.conf", "jobs/llama/nccl.conf", ".env", "jobs/base.env", "jobs/common.sh",
                    "jobs/llama/deep/er/.env", "jobs/llama/deep/er/run.sh"]
    assert "jobs/ll/near.env" not in [e.file for e in scope.envs_for_file(ws, "jobs/llama2/x.sh")]
    # jobs/llama/vars.sh is a job here, so it stops being an env file of train.sh beside it
    assert "jobs/llama/vars.sh" not in [e.file for e in scope.envs_for_file(ws, "jobs/llama/train.sh")]


def test_index_follows_the_workspace_as_it_grows(tmp_path):
    ws = lint_repo(tmp_path, FILES).workspace
    ws.jobs = [FakeJob("jobs/llama/train.sh")]
    ws.cache.clear()
    assert "jobs/llama/vars.sh" in [e.file for e in scope.envs_for_file(ws, "jobs/llama/train.sh")]
    ws.jobs.append(FakeJob("jobs/llama/vars.sh"))              # no cache clear: the index sees the new job
    assert "jobs/llama/vars.sh" not in [e.file for e in scope.envs_for_file(ws, "jobs/llama/train.sh")]
