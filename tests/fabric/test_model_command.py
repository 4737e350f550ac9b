"""``netlint model``: every modelled quantity in ``--format json``; compute against exposed communication
per dimension in the text table; what the job's framework settings turn into (netlint.fabric.settings)."""

from __future__ import annotations

import json

import pytest

from netlint.cli import main
from netlint.fabric import settings as C
from netlint.models.job import training_jobs
from tests.conftest import lint_repo, write_repo
from tests.fabric.test_shape import DEEPSEEK_V3
from tests.rules.fab.test_fab_rules import inv

GPT = """
torchrun --nproc_per_node 8 --nnodes 16 pretrain_gpt.py --tensor-model-parallel-size 8 \\
  --pipeline-model-parallel-size 4 --sequence-parallel --num-layers 96 --hidden-size 12288 \\
  --num-attention-heads 96 --seq-length 2048 --max-position-embeddings 2048 --vocab-size 51200 \\
  --micro-batch-size 1 --global-batch-size 256 --bf16 --use-distributed-optimizer --overlap-grad-reduce
"""


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # files are named from the current directory, as `netlint check` does


def _model(tmp_path, capsys, files, *extra):
    write_repo(tmp_path, files)
    capsys.readouterr()
    assert main(["model", *extra, str(tmp_path)]) == 0
    return capsys.readouterr().out


def test_json_carries_shape_params_flops_time_and_dimensions(tmp_path, capsys):
    out = _model(tmp_path, capsys, {"inventory.yaml": inv(nodes=16),
                                    "gpt.sh": GPT}, "--format", "json")
    job = json.loads(out)["jobs"][0]
    assert job["shape"]["layers"] == 96 and job["shape"]["classic"] is True
    assert round(job["params"] / 1e9, 1) == 174.6 and job["params_activated"] == job["params"]
    assert set(job["flops_per_token"]) == {"layers", "attention", "logits", "total"}
    assert job["step_flops"] < job["step_flops_classic"]                 # causal attention
    t = job["time"]
    assert t["step_s"] == pytest.approx(t["compute_s"] + t["bubble_s"] + t["exposed_comm_s"], abs=2e-4)
    dims = {d["dimension"]: d for d in job["dimensions"]}
    assert set(dims) == {"TP", "PP", "DP"}
    assert dims["TP"]["link"] == "nvlink" and dims["TP"]["size"] == "TP=8" and dims["TP"]["fabric_bytes_per_gpu"] == 0
    assert dims["DP"]["overlap"] == "--overlap-grad-reduce" and dims["DP"]["window_s"] > 0
    assert dims["DP"]["required_nic_gbps_per_gpu"] is not None and job["budget"] == 0.5
    rows = job["traffic"]
    assert {r["collective"] for r in rows if r["dimension"] == "TP"} == {"all-gather", "reduce-scatter"}
    assert all({"calls", "algorithm", "overlap_window"} <= set(r) for r in rows)


def test_text_table_compute_against_exposed_communication(tmp_path, capsys):
    out = _model(tmp_path, capsys, {"inventory.yaml": inv(nodes=16),
                                    "gpt.sh": GPT})
    lines = out.splitlines()
    assert lines[0] == "gpt.sh (megatron): world 128, TP 8 PP 4 DP 4 CP 1 EP 1"
    step = next(line for line in lines if line.startswith("  step "))
    assert "compute" in step and "exposed communication" in step and "modelled MFU" in step
    head = next(line for line in lines if line.strip().startswith("dim "))
    assert "exposed" in head and "hidden by" in head and "NIC needed (50% budget)" in head
    assert any(line.strip().startswith("TP=8 ") and "nvlink" in line for line in lines)


def test_deepseek_v3_moe_in_json(tmp_path, capsys):
    """The MoE shape and the flex dispatcher's per-node dedup reach the output: EP=64 over 8 nodes."""
    out = _model(tmp_path, capsys, {"inventory.yaml": inv(nodes=256),
                                    "ds.sh": DEEPSEEK_V3}, "--format", "json")
    job = json.loads(out)["jobs"][0]
    assert job["shape"]["moe_layers"] == 58 and job["shape"]["mla"]["kv_lora_rank"] == 512
    assert job["params_activated"] / 1e9 == pytest.approx(37, rel=0.03)
    ep = next(d for d in job["dimensions"] if d["dimension"] == "EP")
    assert ep["nodes_spanned"] == 8 and 0 < ep["fabric_bytes_per_gpu"] < ep["bytes_per_gpu"] / 2


DS_CONFIG = """{
  "train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 4,
  "bf16": {"enabled": true}, "communication_data_type": "fp32",
  "zero_optimization": {"stage": 2, "use_multi_rank_bucket_allreduce": false, "overlap_comm": true,
                        "reduce_bucket_size": 200000000}
}
"""
MDS = """
deepspeed --num_nodes 2 --num_gpus 8 pretrain_gpt.py --tensor-model-parallel-size 2 \\
  --pipeline-model-parallel-size 1 --num-layers 24 --hidden-size 2048 --num-attention-heads 16 \\
  --seq-length 2048 --max-position-embeddings 2048 --micro-batch-size 1 --global-batch-size 32 --bf16 \\
  --deepspeed --deepspeed_config ds.json --zero-stage 2
"""


def test_deepspeed_settings_from_the_config(tmp_path):
    """runtime/engine.py L939-951 (communication_data_type), zero/config.py L104-134 (reduce_scatter,
    use_multi_rank_bucket_allreduce, bucket sizes, overlap_comm) at deepspeedai/DeepSpeed@38327e07."""
    report = lint_repo(tmp_path, {"ds.json": DS_CONFIG, "train.sh": MDS})
    job = next(iter(training_jobs(report.workspace)))
    fw = C.framework_of(job)
    assert (fw.name, fw.zero_stage, fw.grad_bytes, fw.ds_reduce, fw.reduce_bucket, fw.overlap_comm) == (
        "megatron-deepspeed", 2, 4, "reduce", 200_000_000, True)


def test_megatron_settings_from_flags(tmp_path):
    """arguments.py L1204-1217: fp32 gradient reduction under --bf16 unless --grad-reduce-in-bf16;
    transformer_config.py L891: the allgather dispatcher unless another is named."""
    script = GPT.replace("--bf16", "--bf16 --grad-reduce-in-bf16 --tp-comm-overlap --context-parallel-size 2 "
                                   "--cp-comm-type allgather")
    report = lint_repo(tmp_path, {"gpt.sh": script})
    fw = C.framework_of(next(iter(training_jobs(report.workspace))))
    assert (fw.grad_bytes, fw.tp_comm_overlap, fw.sequence_parallel, fw.cp_comm) == (2, True, True, "all_gather")
    report = lint_repo(tmp_path / "b", {"gpt.sh": GPT})
    assert C.framework_of(next(iter(training_jobs(report.workspace)))).grad_bytes == 4


def test_nvls_only_where_the_inventory_says_so(tmp_path):
    """nodes[].nvls: true (NVSwitch gen 3 + Fabric Manager) gives intra-node all-reduces NVLS's 480 GB/s
    busbw on H100 (nccl-tests#212); unset, or NCCL_NVLS_ENABLE=0 in the job, leaves the ring."""
    from netlint.fabric.settings import hardware_of, node_shape

    with_nvls = inv(nodes=16).replace("  gpu: H100\n", "  gpu: H100\n  nvls: true\n")
    for text, env, want in ((with_nvls, "", 480.0), (inv(nodes=16), "", None),
                            (with_nvls, "export NCCL_NVLS_ENABLE=0\n", None)):
        report = lint_repo(tmp_path / str(len(env)) / str(want), {"inventory.yaml": text, "gpt.sh": env + GPT})
        job = next(iter(training_jobs(report.workspace)))
        assert hardware_of(job, node_shape(report.workspace.inventory), 0.4).links.nvls == want
