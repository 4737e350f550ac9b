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
