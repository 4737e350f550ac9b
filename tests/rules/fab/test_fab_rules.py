"""FAB5xx: code, line and column on a failing job; silence on the passing one."""

from __future__ import annotations

import pytest

from netlint.findings import Severity
from tests.conftest import at, lint_repo, only

INVENTORY = """
cluster: test
nodes:
  count: {nodes}
  gpus: 8
  gpu: H100
  nics: [{nics}]
fabric:
  transport: roce
"""
NIC400 = ", ".join(f"{{hca: mlx5_{i}, speed: 400G}}" for i in range(8))
NIC100 = "{hca: mlx5_0, speed: 100G}"


def inv(nodes=4, nics=NIC400):
    return INVENTORY.format(nodes=nodes, nics=nics)


VIA_VARIABLE = """
#!/bin/bash
export CUDA_DEVICE_MAX_CONNECTIONS=1
TP={tp}
PP=2
torchrun --nproc_per_node 8 --nnodes 4 pretrain_gpt.py \\
    --tensor-model-parallel-size $TP \\
    --pipeline-model-parallel-size $PP \\
    --num-layers 32 --hidden-size 4096 --num-attention-heads 32 \\
    --seq-length 2048 --max-position-embeddings 2048 \\
    --micro-batch-size 1 --global-batch-size 64 --bf16
"""
VIA_ARRAY = """
#!/bin/bash
export CUDA_DEVICE_MAX_CONNECTIONS=1
TP_SIZE={tp}
MODEL_PARALLEL_ARGS=(
    --tensor-model-parallel-size ${{TP_SIZE}}
    --pipeline-model-parallel-size 2
)
GPT=(--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --seq-length 2048
     --max-position-embeddings 2048 --micro-batch-size 1 --global-batch-size 64 --bf16)
torchrun --nproc_per_node 8 --nnodes 4 pretrain_gpt.py ${{GPT[@]}} ${{MODEL_PARALLEL_ARGS[@]}}
"""


@pytest.mark.parametrize("script,pos,origin", [(VIA_VARIABLE, (6, 34), (3, 4)), (VIA_ARRAY, (5, 34), (3, 9))])
def test_fab501_tp16_on_8gpu_nodes(tmp_path, script, pos, origin):
    report = lint_repo(tmp_path, {"inventory.yaml": inv(), "train.sh": script.format(tp=16)})
    f = only(report, "FAB501")
    assert at(f) == pos and f.span.file == "train.sh"
    assert "TP=16 spans nodes over RoCE (NVLink domain is 8 GPUs)" in f.message
    assert (f.related[0].span.line, f.related[0].span.col) == origin
    assert f.fix is not None and not f.fix.safe
    # the layout advisor's best split that the launch's words can express (netlint.fabric.advisor)
    assert [e.replacement for e in f.fix.edits] == ["2"]          # TP 16→2, PP stays 2, DP 1→8
    assert f.fix.description.startswith("advised layout TP 2 PP 2 DP 8: TP 16 → 2, DP 1 → 8 (world size and "
                                        "global batch 64 unchanged")
    assert f.fix.edits[0].span.line == origin[0]                  # edits the assignment


def test_fab501_fix_outside_megatron_keeps_the_old_rule(tmp_path):
    """Megatron-DeepSpeed's batch also lives in the DeepSpeed config, so no advised layout: TP into the
    domain, PP × the same factor (the world size and DP hold)."""
    script = VIA_VARIABLE.format(tp=16).replace("--bf16", "--bf16 --deepspeed")
    report = lint_repo(tmp_path, {"inventory.yaml": inv(), "train.sh": script})
    f = only(report, "FAB501")
    assert [e.replacement for e in f.fix.edits] == ["8", "4"]
    assert f.fix.description == "TP 16 → 8, PP 2 → 4 (world size unchanged)"


def test_fab501_advice_keeps_dp_when_the_global_batch_is_not_written(tmp_path):
    """Megatron sets the global batch to micro batch × DP when it is not given (arguments.py L702-704 at
    d98e8a64): a fix that changed DP would change the batch, so the advised layout keeps DP = 1."""
    script = VIA_VARIABLE.format(tp=16).replace(" --global-batch-size 64", "")
    report = lint_repo(tmp_path, {"inventory.yaml": inv(), "train.sh": script})
    f = only(report, "FAB501")
    assert "DP 1 →" not in f.fix.description and f.fix.description.endswith("GB per GPU)")
    tp, pp = (int(e.replacement) for e in f.fix.edits)
    assert tp <= 8 and tp * pp == 32


@pytest.mark.parametrize("script", [VIA_VARIABLE, VIA_ARRAY])
def test_fab501_tp8_is_fine(tmp_path, script):
    report = lint_repo(tmp_path, {"inventory.yaml": inv(), "train.sh": script.format(tp=8)})
    assert not [f for f in report.findings if f.code.startswith("FAB")]


def test_fab501_silent_without_inventory(tmp_path):
    report = lint_repo(tmp_path, {"train.sh": VIA_VARIABLE.format(tp=16)})
    assert not [f for f in report.findings if f.code == "FAB501"]


MOE = """
torchrun --nproc_per_node 8 --nnodes 4 pretrain_gpt.py --num-layers 32 --hidden-size 4096 \\
  --num-attention-heads 32 --seq-length 4096 --max-position-embeddings 4096 --micro-batch-size 1 \\
  --global-batch-size 64 --bf16 --num-experts 16 --moe-router-topk 2 --expert-model-parallel-size {ep}
"""


def test_fab502_ep_crosses_nodes(tmp_path):
    report = lint_repo(tmp_path, {"inventory.yaml": inv(), "moe.sh": MOE.format(ep=16)})
    f = only(report, "FAB502")
    assert at(f) == (3, 99) and "EP=16 group crosses the NVLink domain (8 GPUs)" in f.message
    assert "per GPU per step through the NICs" in f.message


def test_fab502_ep8_fine(tmp_path):
    report = lint_repo(tmp_path, {"inventory.yaml": inv(), "moe.sh": MOE.format(ep=8)})
    assert not [f for f in report.findings if f.code == "FAB502"]


SMALL = """
torchrun --nproc_per_node {nproc} --nnodes {nnodes} pretrain_gpt.py --num-layers 32 --hidden-size 4096 \\
  --num-attention-heads 32 --seq-length 2048 --max-position-embeddings 2048 --micro-batch-size 1 \\
  --global-batch-size 256 --bf16
"""


def test_fab503_world_exceeds_cluster(tmp_path):
    report = lint_repo(tmp_path, {"inventory.yaml": inv(nodes=4), "j.sh": SMALL.format(nproc=8, nnodes=16)})
    f = only(report, "FAB503")
    assert at(f) == (1, 38) and "world size 128 is larger than the cluster (32 GPUs)" in f.message


def test_fab503_nproc_more_than_gpus(tmp_path):
    report = lint_repo(tmp_path, {"inventory.yaml": inv(nodes=4), "j.sh": SMALL.format(nproc=16, nnodes=2)})
    f = only(report, "FAB503")
    assert at(f) == (1, 27) and "16 processes per node but nodes have 8 GPUs" in f.message


def test_fab503_fewer_processes_than_gpus_leave_gpus_idle(tmp_path):
    report = lint_repo(tmp_path, {"inventory.yaml": inv(nodes=4), "j.sh": SMALL.format(nproc=4, nnodes=2)})
    f = only(report, "FAB503")
    assert at(f) == (1, 27) and "4 processes per node leave 4 of 8 GPUs idle" in f.message
    assert f.severity is Severity.WARNING


def test_fab503_one_process_on_one_node_is_not_a_sizing_slip(tmp_path):
    # NeMo's stock configs (a checkpoint-conversion hparams file) carry devices: 1, num_nodes: 1
    nemo = "trainer:\n  devices: 1\n  num_nodes: 1\nmodel:\n  tensor_model_parallel_size: 1\n"
    report = lint_repo(tmp_path, {"inventory.yaml": inv(nodes=4), "megatron_llama_config.yaml": nemo,
                                  "j.sh": SMALL.format(nproc=1, nnodes=1)})
    assert not [f for f in report.findings if f.code == "FAB503"]


def test_fab503_fits(tmp_path):
    report = lint_repo(tmp_path, {"inventory.yaml": inv(nodes=4), "j.sh": SMALL.format(nproc=8, nnodes=4)})
    assert not [f for f in report.findings if f.code == "FAB503"]


DP_HEAVY = """
torchrun --nproc_per_node 8 --nnodes 64 pretrain_gpt.py --num-layers 32 --hidden-size 4096 \\
  --num-attention-heads 32 --seq-length 2048 --max-position-embeddings 2048 --micro-batch-size 1 \\
  --global-batch-size 512 --bf16 --vocab-size 50304
"""


def test_fab504_100gbe_cannot_sustain(tmp_path):
    """The hard limit (kept from before): 6.6 GB of fp32 gradient all-reduce per GPU must leave the node
    in a 0.21 s step even if overlapped, on one 100GbE NIC per 8 GPUs. The message now names the
    dimension and the GB/s (it was "cannot sustain required …")."""
    report = lint_repo(tmp_path, {"inventory.yaml": inv(nodes=64, nics=NIC100), "dp.sh": DP_HEAVY})
    f = only(report, "FAB504")
    assert at(f) == (1, 38)
    assert f.message.startswith("100GbE cannot sustain the 30.5 GB/s per GPU that the job needs across nodes "
                                "even with every collective overlapped (achievable 1.5 GB/s): DP=512 6.6 GB")


def test_fab504_400g_per_gpu_is_enough(tmp_path):
    report = lint_repo(tmp_path, {"inventory.yaml": inv(nodes=64), "dp.sh": DP_HEAVY})
    assert not [f for f in report.findings if f.code == "FAB504"]


NIC100x8 = ", ".join(f"{{hca: mlx5_{i}, speed: 100G}}" for i in range(8))
GPT175 = """
#!/bin/bash
export CUDA_DEVICE_MAX_CONNECTIONS=1
torchrun --nproc_per_node 8 --nnodes 16 pretrain_gpt.py \\
    --tensor-model-parallel-size {tp} --pipeline-model-parallel-size {pp} --sequence-parallel \\
    --num-layers 96 --hidden-size 12288 --num-attention-heads 96 \\
    --seq-length 2048 --max-position-embeddings 2048 --vocab-size 51200 \\
    --micro-batch-size 1 --global-batch-size 64 --bf16 --use-distributed-optimizer
"""


def test_fab504_tp16_across_nodes_on_8x100gbe(tmp_path):
    """GPT-3 175B at TP=16 over 8-GPU nodes: 24.2 GB of TP traffic per GPU per step through the NICs;
    at 11.75 GB/s per GPU its exposed part grows past half the 2.75 s compute (needs 13.8 GB/s)."""
    report = lint_repo(tmp_path, {"inventory.yaml": inv(nodes=16, nics=NIC100x8), "t.sh": GPT175.format(tp=16, pp=8)})
    f = only(report, "FAB504")
    assert at(f) == (4, 34) and f.span.file == "t.sh"              # at --tensor-model-parallel-size's value
    assert f.message.startswith("100GbE cannot sustain the 13.8 GB/s per GPU that TP=16 needs across nodes "
                                "(achievable 11.8 GB/s): 24.2 GB per GPU per step through the NICs")
    assert "budget of 50% of the 2.75 s compute" in f.message
    assert (f.related[0].span.line, f.related[0].message) == (6, "NIC speed")


def test_fab504_tp8_inside_the_node_is_fine(tmp_path):
    report = lint_repo(tmp_path, {"inventory.yaml": inv(nodes=16, nics=NIC100x8), "t.sh": GPT175.format(tp=8, pp=16)})
    assert not [f for f in report.findings if f.code == "FAB504"]


def test_fab504_budget_is_configurable(tmp_path):
    """[tool.netlint.rules.FAB504] budget: a larger share of the compute for exposed communication."""
    files = {"inventory.yaml": inv(nodes=16, nics=NIC100x8), "t.sh": GPT175.format(tp=16, pp=8),
             "netlint.yaml": "rules: {FAB504: {budget: 2.0}}\n"}
    report = lint_repo(tmp_path, files)
    assert not [f for f in report.findings if f.code == "FAB504"]


BUBBLE = """
torchrun --nproc_per_node 8 --nnodes 8 pretrain_gpt.py --tensor-model-parallel-size 8 \\
  --pipeline-model-parallel-size 8 --num-layers 32 --hidden-size 4096 --num-attention-heads 32 \\
  --seq-length 2048 --max-position-embeddings 2048 --micro-batch-size 1 --global-batch-size {gbs} --bf16
"""


def test_fab505_bubble(tmp_path):
    report = lint_repo(tmp_path, {"b.sh": BUBBLE.format(gbs=10)})
    f = only(report, "FAB505")
    assert at(f) == (2, 34)
    assert "41% of each step" in f.message and "70% of ideal compute time" in f.message


def test_fab505_enough_microbatches(tmp_path):
    report = lint_repo(tmp_path, {"b.sh": BUBBLE.format(gbs=64)})
    assert not [f for f in report.findings if f.code == "FAB505"]
