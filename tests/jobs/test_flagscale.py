"""FlagScale train configs (``conf/train/<size>.yaml``: ``system:``, ``model:``, ``data:``) read as Megatron-LM
jobs for their sizes (round 20: FlagScale's Hydra configs were passed over in silence)."""

from __future__ import annotations

from tests.conftest import at, lint_repo

TRAIN = """\
system:
  tensor_model_parallel_size: 3
  pipeline_model_parallel_size: 2
  sequence_parallel: false
  precision:
    bf16: true
  logging:
    log_dir: ${experiment.exp_dir}/logs
model:
  num_layers: 27
  hidden_size: 4096
  num_attention_heads: 32
  micro_batch_size: 1
  global_batch_size: 8
data:
  data_path: /data/x
"""


def _codes(report, *codes):
    return [f for f in report.findings if f.code in codes]


def test_a_train_config_is_a_megatron_job_with_its_sizes_and_an_unknown_world(tmp_path):
    report = lint_repo(tmp_path, {"conf/train/7b.yaml": TRAIN})
    (job,) = report.workspace.jobs
    assert (job.int("tp"), job.int("pp"), job.int("layers"), job.dtype.value) == (3, 2, 27, "bf16")
    assert "--sequence-parallel" not in job.args and "--bf16" in job.args  # flattened as FlagScale does
    assert [at(f) for f in _codes(report, "JOB406")] == [(12, 24)]   # 32 heads, TP=3
    assert [at(f) for f in _codes(report, "JOB405")] == [(10, 15)]    # 27 layers, PP=2
    (world,) = [f for f in _codes(report, "NL012") if "world size unknown" in f.message]
    assert at(world) == (1, 1) and "experiment.runner" in world.message


def test_an_uneven_first_stage_is_no_layer_split_error(tmp_path):
    text = TRAIN.replace("  sequence_parallel: false\n", "  decoder_first_pipeline_num_layers: 13\n")
    report = lint_repo(tmp_path, {"conf/train/16b.yaml": text})
    assert _codes(report, "JOB405") == [] and len(_codes(report, "JOB406")) == 1


def test_other_backends_with_the_same_sections_are_not_jobs(tmp_path):
    # FlagScale's pi0 and compression configs use system/model/data for keys of their own
    pi0 = ("system:\n  tensor_model_parallel_size: 1\n  batch_size: 2\nmodel:\n  checkpoint_dir: /m\n"
           "  action_horizon: 14\ndata:\n  data_path: /d\n")
    report = lint_repo(tmp_path, {"conf/train/pi0.yaml": pi0})
    assert report.workspace.jobs == [] and _codes(report, "JOB402") == []


EXPERIMENT = ("defaults:\n  - train: 7b\n  - _self_\nexperiment:\n  task: {type: train, backend: megatron}\n"
              "  runner:\n    backend: torchrun\n    nnodes: 2\n    nproc_per_node: 8\n")


def test_the_experiment_config_that_selects_the_train_config_gives_the_world(tmp_path):
    # round 21: conf/train.yaml's runner (2 × 8) and conf/train/7b.yaml's TP 4 × PP 3 were never put together
    train = TRAIN.replace("tensor_model_parallel_size: 3", "tensor_model_parallel_size: 4").replace(
        "pipeline_model_parallel_size: 2", "pipeline_model_parallel_size: 3")
    report = lint_repo(tmp_path, {"conf/train.yaml": EXPERIMENT, "conf/train/7b.yaml": train})
    (job,) = report.workspace.jobs
    assert job.int("world_size") == 16 and job.nodes.span.file == "conf/train.yaml" and job.nodes.span.line == 8
    (f,) = _codes(report, "JOB403")
    assert at(f) == (3, 33) and "world size 16" in f.message
    assert not [f for f in _codes(report, "NL012") if "world size unknown" in f.message]


def test_a_hostfile_or_disagreeing_experiments_leave_the_world_unknown(tmp_path):
    hostfile = EXPERIMENT + "    hostfile: ${hostfile??}\n"
    report = lint_repo(tmp_path / "h", {"conf/train.yaml": hostfile, "conf/train/7b.yaml": TRAIN})
    (f,) = [f for f in _codes(report, "NL012") if "world size unknown" in f.message]
    assert "conf/train.yaml comes from its hostfile" in f.message and _codes(report, "JOB403") == []
    other = EXPERIMENT.replace("nnodes: 2", "nnodes: 4")
    report = lint_repo(tmp_path / "d", {"conf/train.yaml": EXPERIMENT, "conf/big.yaml": other,
                                        "conf/train/7b.yaml": TRAIN})
    (f,) = [f for f in _codes(report, "NL012") if "world size unknown" in f.message]
    assert "give different sizes (conf/big.yaml, conf/train.yaml)" in f.message
