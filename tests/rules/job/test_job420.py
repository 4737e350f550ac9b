"""JOB420: --rampup-batch-size against Megatron's ramp-up calculator (Megatron-DeepSpeed errors,
Megatron-LM warnings and an info, since core_v0.18 ignores the option)."""

from __future__ import annotations

import pytest

from tests.conftest import at, lint_repo, only

# Megatron-DeepSpeed (the deepspeed launcher): 1 node × 8 GPUs, TP 1 → DP 8, micro 1 → micro × DP = 8
MDS = ("deepspeed --num_nodes 1 --num_gpus 8 pretrain_gpt.py --deepspeed --num-layers 2 --hidden-size 64 "
       "--num-attention-heads 4 --seq-length 128 --max-position-embeddings 128 --micro-batch-size 1 "
       "--global-batch-size 64 --train-samples 100000 --rampup-batch-size ")
MLM = ("torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 2 --hidden-size 64 --num-attention-heads 4 "
       "--seq-length 128 --max-position-embeddings 128 --micro-batch-size 1 --global-batch-size 64 "
       "--train-samples 100000 --rampup-batch-size ")


def _col(line: str, i: int) -> int:
    """Column of the i-th value after --rampup-batch-size."""
    base = line.index("--rampup-batch-size ") + len("--rampup-batch-size ")
    return base + sum(len(v) + 1 for v in line[base:].split()[:i]) + 1


@pytest.mark.parametrize("ramp,i,words", [
    ("4 4 1000", 0, ("start batch 4", "micro batch 1 × DP 8 = 8")),
    ("8 4 1000", 1, ("increment 4", "after the first increment")),
    ("8 16 1000", 1, ("64 − start batch 8 = 56", "not divisible by the ramp-up increment 16")),
    ("128 8 1000", 0, ("start batch 128 is larger than the global batch 64",)),
    ("64 8 1000", 0, ("ZeroDivisionError",)),
    ("8 8 0", 2, ("0 ramp-up samples", "ZeroDivisionError")),
    ("0 8 1000", 0, ("start batch size is 0", "positive")),
])
def test_bad_rampup_is_an_error_at_the_number(tmp_path, ramp, i, words):
    line = MDS + ramp
    f = only(lint_repo(tmp_path, {"t.sh": line + "\n"}), "JOB420")
    assert at(f) == (1, _col(line, i))
    assert f.severity.name == "ERROR"
    for w in words:
        assert w in f.message, f.message


def test_bigscience_tr10_rampup_with_underscores_is_accepted(tmp_path):
    # tr10-13B: --rampup-batch-size 16 16 6_000_000, micro 1; 16 GPUs at TP 2 × PP 4 → DP 2
    line = ("deepspeed --num_nodes 2 --num_gpus 8 pretrain_gpt.py --deepspeed --tensor-model-parallel-size 2 "
            "--pipeline-model-parallel-size 4 --num-layers 40 --hidden-size 5120 --num-attention-heads 32 "
            "--seq-length 2048 --max-position-embeddings 2048 --micro-batch-size 1 --global-batch-size 2048 "
            "--train-samples 300_000_000 --rampup-batch-size 16 16 6_000_000")
    report = lint_repo(tmp_path, {"t.sh": line + "\n"})
    assert not [f for f in report.findings if f.code == "JOB420"]
    job = next(j for j in report.workspace.jobs if getattr(j, "rampup_batch", None))
    assert [s.value for s in job.rampup_batch] == [16, 16, 6_000_000] and job.int("dp") == 2


def test_good_rampup_is_silent_and_unknown_dp_is_silent(tmp_path):
    good = lint_repo(tmp_path / "good", {"t.sh": MDS + "16 16 6_000_000\n"})
    assert not [f for f in good.findings if f.code == "JOB420"]
    # no --num_nodes/--num_gpus: the world size (and DP) is unknown, so 4 is not judged against micro × DP
    unknown = MDS.replace("--num_nodes 1 --num_gpus 8 ", "") + "4 4 1000"
    assert not [f for f in lint_repo(tmp_path / "u", {"t.sh": unknown + "\n"}).findings if f.code == "JOB420"]


def test_train_iters_refuses_a_rampup(tmp_path):
    line = MDS.replace("--train-samples 100000", "--train-iters 1000") + "16 16 1000"
    f = only(lint_repo(tmp_path, {"t.sh": line + "\n"}), "JOB420")
    assert "iteration-based" in f.message and at(f) == (1, _col(line, 0))
    assert any(r.span.col == line.index("--train-iters") + 1 for r in f.related)


def test_wrong_number_of_values_is_located_at_the_flag(tmp_path):
    line = MDS + "16 16"
    f = only(lint_repo(tmp_path, {"t.sh": line + "\n"}), "JOB420")
    assert at(f) == (1, line.index("--rampup-batch-size") + 1) and "got 2" in f.message


def test_megatron_lm_is_a_warning_naming_the_versions_and_a_valid_rampup_an_info(tmp_path):
    line = MLM + "4 4 1000"
    f = only(lint_repo(tmp_path / "b", {"t.sh": "export CUDA_DEVICE_MAX_CONNECTIONS=1\n" + line + "\n"}), "JOB420")
    assert f.severity.name == "WARNING" and at(f) == (2, _col(line, 0))
    assert "core_v0.17" in f.message and "core_v0.18.0" in f.message
    ok = MLM + "16 16 6_000_000"
    g = only(lint_repo(tmp_path / "g", {"t.sh": "export CUDA_DEVICE_MAX_CONNECTIONS=1\n" + ok + "\n"}), "JOB420")
    assert g.severity.name == "INFO" and "ignore" in g.message and at(g) == (2, ok.index("--rampup") + 1)
