"""JOB436: deepspeed launcher options it refuses together (FlagAlpha/Llama2-Chinese finetune.sh passes
`--include localhost:1,0 --num_gpus 2`: the runner raises before it starts anything)."""

from __future__ import annotations

from tests.conftest import at, lint_repo

TRAIN = " finetune_clm.py --deepspeed ds.json --per_device_train_batch_size 1\n"


def _436(report):
    return [f for f in report.findings if f.code == "JOB436"]


def test_include_with_num_gpus_stops_the_launch(tmp_path):
    line = "deepspeed --include localhost:1,0 --num_gpus 2" + TRAIN
    (f,) = _436(lint_repo(tmp_path, {"finetune.sh": line}))
    assert at(f) == (1, line.index("--num_gpus") + 1) and "Cannot specify num_nodes/gpus" in f.message


def test_include_with_exclude_stops_the_launch(tmp_path):
    line = "deepspeed --include worker-1 --exclude worker-2:0" + TRAIN
    (f,) = _436(lint_repo(tmp_path, {"run.sh": line}))
    assert at(f) == (1, line.index("--exclude") + 1) and "mutually exclusive" in f.message


def test_either_alone_is_fine(tmp_path):
    report = lint_repo(tmp_path, {"a.sh": "deepspeed --include localhost:1,0" + TRAIN,
                                  "b.sh": "deepspeed --num_nodes 2 --num_gpus 8 --hostfile hostfile" + TRAIN,
                                  "hostfile": "worker-1 slots=8\nworker-2 slots=8\n"})
    assert _436(report) == []
