"""When a rule offers a fix and when it must not (the goldens cover the fixes themselves)."""

from __future__ import annotations

from pathlib import Path

from conftest import lint_repo, only

GOLDEN = Path(__file__).resolve().parent / "golden"

DS = """{
  "train_batch_size": 32,
  "train_micro_batch_size_per_gpu": 2,
  "gradient_accumulation_steps": 4
}
"""
LAUNCH = """#!/bin/bash
torchrun --nnodes 2 --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 2 \\
  --num-layers 24 --hidden-size 2048 --num-attention-heads 16 --seq-length 2048 \\
  --max-position-embeddings 2048 --micro-batch-size 2 {extra}--deepspeed --deepspeed_config ds.json
"""


def test_job430_fix_is_the_product_and_unsafe(tmp_path):
    f = only(lint_repo(tmp_path, {"ds.json": DS, "train.sh": LAUNCH.format(extra="")}), "JOB430")
    assert f.fix is not None and not f.fix.safe
    assert [e.replacement for e in f.fix.edits] == ["64"]


def test_job430_no_fix_without_data_parallel_size(tmp_path):
    f = only(lint_repo(tmp_path, {"ds.json": DS.replace("32", "30")}), "JOB430")  # not a multiple; DP unknown
    assert f.fix is None


def test_job430_no_fix_when_global_batch_size_disagrees(tmp_path):
    files = {"ds.json": DS, "train.sh": LAUNCH.format(extra="--global-batch-size 32 ")}
    batch = [f for f in lint_repo(tmp_path, files).findings if f.code == "JOB430" and "!=" in f.message]
    assert batch and all(f.fix is None for f in batch)


def test_job430_no_fix_when_world_size_is_guessed(tmp_path):
    launch = LAUNCH.format(extra="").replace("torchrun --nnodes 2 --nproc_per_node 8", "torchrun")
    files = {"ds.json": DS.replace("32", "30"), "train.sh": launch.replace("--tensor-model-parallel-size 2", "")}
    assert all(f.fix is None for f in lint_repo(tmp_path, files).findings if f.code == "JOB430")


def test_xc602_tie_gets_no_fix(tmp_path):
    inv = (GOLDEN / "XC602" / "typo-shell" / "inventory.yaml").read_text()
    f = only(lint_repo(tmp_path, {"inventory.yaml": inv, "a.env": "NCCL_IB_HCA=mlx5_0,mlx5_12\n"}), "XC602")
    assert "did you mean mlx5_1 or mlx5_2?" in f.message and f.fix is None
