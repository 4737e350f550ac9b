"""A launch script joined to the torchtitan / gpt-neox config it names: the world size comes from the
launch; JOB421 (torchtitan) and JOB403 (gpt-neox) then judge the config's parallel degrees."""

from __future__ import annotations

from netlint.models.job import training_jobs
from tests.conftest import at, lint_repo, only

RUN_TRAIN = """\
#!/usr/bin/bash
NGPU=${NGPU:-"8"}
CONFIG_FILE=${CONFIG_FILE:-"./configs/tt.toml"}
torchrun --nproc_per_node=${NGPU} --rdzv_backend c10d -m torchtitan.train --job.config_file ${CONFIG_FILE} "$@"
"""
SLURM = """\
#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
srun torchrun --nnodes $SLURM_NNODES --nproc_per_node 8 -m torchtitan.train --job.config_file ./configs/tt.toml
"""


def toml(shard: str, tp: str) -> str:
    return f"[training]\nlocal_batch_size = 8\n\n[parallelism]\ndata_parallel_shard_degree = {shard}\n" \
           f"tensor_parallel_degree = {tp}\n"


def _codes(report, code):
    return [f for f in report.findings if f.code == code]


def test_torchtitan_mismatch_is_located_at_the_degree_with_the_launch_related(tmp_path):
    report = lint_repo(tmp_path, {"run_train.sh": RUN_TRAIN, "configs/tt.toml": toml("4", "4")})
    f = only(report, "JOB421")
    assert f.file == "configs/tt.toml" and at(f) == (5, 30)
    assert "16 != WORLD_SIZE 8" in f.message
    assert ("run_train.sh", 4, 1) in {(r.span.file, r.span.line, r.span.col) for r in f.related}
    job = next(training_jobs(report.workspace))
    assert (job.int("world_size"), job.int("tp"), job.int("dp")) == (8, 4, 4)


def test_torchtitan_shard_minus_one_fails_only_when_the_rest_does_not_divide(tmp_path):
    good = lint_repo(tmp_path / "g", {"run_train.sh": RUN_TRAIN, "configs/tt.toml": toml("-1", "4")})
    assert not _codes(good, "JOB421")
    (job,) = training_jobs(good.workspace)  # the config's own world-less job is hidden by the joined one
    assert (job.int("world_size"), job.int("dp"), job.int("dp_shard")) == (8, 2, -1)
    bad = lint_repo(tmp_path / "b", {"run_train.sh": RUN_TRAIN, "configs/tt.toml": toml("-1", "3")})
    f = only(bad, "JOB421")
    assert at(f) == (6, 26) and "not a multiple" in f.message and "becomes 2" in f.message


def test_torchtitan_without_a_launch_is_silent(tmp_path):
    report = lint_repo(tmp_path, {"configs/tt.toml": toml("4", "4")})
    assert not _codes(report, "JOB421")
    (job,) = training_jobs(report.workspace)
    assert job.int("world_size") is None and "world_size" in job.unknown


def test_torchtitan_slurm_world_and_a_command_line_override(tmp_path):
    # 2 nodes × 8 = 16 = 4 × 4: fine; the launch's --parallelism override then makes it 4 × 2 = 8
    ok = lint_repo(tmp_path / "ok", {"train.slurm": SLURM, "configs/tt.toml": toml("4", "4")})
    assert not _codes(ok, "JOB421")
    assert next(training_jobs(ok.workspace)).int("world_size") == 16
    over = SLURM.replace("tt.toml\n", "tt.toml --parallelism.tensor_parallel_degree 2\n")
    f = only(lint_repo(tmp_path / "o", {"train.slurm": over, "configs/tt.toml": toml("4", "4")}), "JOB421")
    assert f.file == "configs/tt.toml" and at(f) == (5, 30) and "tensor_parallel(2)" in f.message


NEOX_LAUNCH = "python ./deepy.py train.py -d configs model.yml local\n"


def neox_model(mp: int, pp: int) -> str:
    return ("{\n  \"pipe_parallel_size\": %d,\n  \"model_parallel_size\": %d,\n  \"num_layers\": 12,\n"
            "  \"hidden_size\": 768,\n  \"num_attention_heads\": 12,\n}\n" % (pp, mp))


def neox_files(mp: int, pp: int, launch: bool = True) -> dict:
    files = {"configs/model.yml": neox_model(mp, pp), "configs/local.yml": "hostfile: ./hostfile\n",
             "hostfile": "node-1 slots=4\nnode-2 slots=4\n"}
    if launch:
        files["train.sh"] = NEOX_LAUNCH
    return files


def test_neox_mismatch_is_located_at_the_degree_with_the_hostfile_and_launch_related(tmp_path):
    report = lint_repo(tmp_path, neox_files(3, 1))
    f = only(report, "JOB403")
    assert f.file == "configs/model.yml" and at(f) == (3, 26)
    assert "world size 8" in f.message and "3×1 = 3" in f.message
    rel = {(r.span.file, r.span.line) for r in f.related}
    assert ("configs/local.yml", 1) in rel and ("train.sh", 1) in rel


def test_neox_match_and_no_launch_are_silent(tmp_path):
    good = lint_repo(tmp_path / "g", neox_files(2, 2))
    assert not _codes(good, "JOB403")
    (job,) = training_jobs(good.workspace)
    assert (job.int("world_size"), job.int("tp"), job.int("pp"), job.int("dp")) == (8, 2, 2, 2)
    alone = lint_repo(tmp_path / "a", neox_files(3, 1, launch=False))
    assert not _codes(alone, "JOB403")
    (job,) = training_jobs(alone.workspace)
    assert job.int("world_size") is None


def test_neox_num_gpus_per_host_and_global_num_gpus(tmp_path):
    files = neox_files(3, 1)
    files["configs/local.yml"] = "hostfile: ./hostfile\nnum_gpus: 3\n"  # 3 per host × 2 hosts = 6
    report = lint_repo(tmp_path / "n", files)
    assert not _codes(report, "JOB403")
    assert next(training_jobs(report.workspace)).int("world_size") == 6
    # global_num_gpus in the config gives the count without any launch
    cfg = neox_model(3, 1).replace("{\n", "{\n  \"global_num_gpus\": 16,\n")
    f = only(lint_repo(tmp_path / "g", {"configs/model.yml": cfg}), "JOB403")
    assert "world size 16" in f.message and at(f) == (4, 26)


def test_torchtitan_degree_below_one_is_reported_at_that_degree(tmp_path):
    f = only(lint_repo(tmp_path, {"run_train.sh": RUN_TRAIN, "configs/tt.toml": toml("-1", "0")}), "JOB421")
    assert at(f) == (6, 26) and "tensor_parallel_degree = 0" in f.message


def test_torchtitan_started_by_srun_python_takes_the_slurm_tasks(tmp_path):
    # NVIDIA dgxc-benchmarking: `srun … python -m torchtitan.train --job.config_file=…`, one trainer per task
    launch = ("#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=8\n"
              "srun python -m torchtitan.train --job.config_file=./configs/tt.toml\n")
    report = lint_repo(tmp_path / "a", {"launch.sh": launch, "configs/tt.toml": toml("4", "2")})
    f = only(report, "JOB421")  # bad: 4 × 2 = 8 != the 16 tasks srun starts
    assert f.file == "configs/tt.toml" and at(f) == (5, 30) and "16" in f.message
    good = lint_repo(tmp_path / "b", {"launch.sh": launch, "configs/tt.toml": toml("8", "2")})
    (job,) = training_jobs(good.workspace)
    assert (job.int("world_size"), job.int("dp"), job.int("tp")) == (16, 8, 2) and not _codes(good, "JOB421")
