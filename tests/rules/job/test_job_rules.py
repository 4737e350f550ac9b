"""JOB4xx: each rule fires with code, line and column on a bad file and stays silent on a good one."""

from __future__ import annotations

import pytest

from tests.conftest import at, lint_repo, only

BASE = ("torchrun --nproc_per_node 8 --nnodes 1 pretrain_gpt.py --num-layers 32 --hidden-size 4096 "
        "--num-attention-heads 32 --seq-length 2048 --max-position-embeddings 2048 --micro-batch-size 1 "
        "--global-batch-size 64 --bf16 ")
ENV = "export CUDA_DEVICE_MAX_CONNECTIONS=1\n"


def col(line: str, token: str, nth: int = 0) -> int:
    i = -1
    for _ in range(nth + 1):
        i = line.index(token, i + 1)
    return i + 1


CASES = [
    # code, bad extra args, token the finding points at, good extra args
    ("JOB401", "--tensor-model-parallel 2", "--tensor-model-parallel ", "--tensor-model-parallel-size 2"),
    ("JOB402", "--batch-size 4", "--batch-size", ""),
    ("JOB403", "--pipeline-model-parallel-size 16", "16", "--pipeline-model-parallel-size 4"),
    ("JOB404", "--num-experts 8 --expert-model-parallel-size 16", "16", "--num-experts 8 --expert-model-parallel-size 8"),
    ("JOB405", "--pipeline-model-parallel-size 3 --global-batch-size 60", "32", "--pipeline-model-parallel-size 4"),
    ("JOB406", "--tensor-model-parallel-size 8 --num-attention-heads 36", "36", "--tensor-model-parallel-size 8"),
    ("JOB407", "--context-parallel-size 2 --seq-length 2050 --max-position-embeddings 4096", "2050",
     "--context-parallel-size 2"),
    ("JOB408", "--global-batch-size 12", "12", "--global-batch-size 16"),
    ("JOB409", "--step-batch-size-schedule 0:16", "--global-batch-size", ""),
    ("JOB410", "--fp16", "--bf16", ""),
    ("JOB411", "--sequence-parallel", "--sequence-parallel", "--tensor-model-parallel-size 2 --sequence-parallel"),
    ("JOB412", "--tensor-model-parallel-size 2 --tp-comm-overlap", "--tp-comm-overlap",
     "--tensor-model-parallel-size 2 --tp-comm-overlap --sequence-parallel"),
    ("JOB414", "--overlap-param-gather --overlap-grad-reduce", "--overlap-param-gather",
     "--overlap-param-gather --overlap-grad-reduce --use-distributed-optimizer"),
    ("JOB415", "--num-experts 6 --expert-model-parallel-size 4", "6", "--num-experts 8 --expert-model-parallel-size 4"),
    ("JOB416", "--tensor-model-parallel-size 2 --num-experts 8 --expert-model-parallel-size 2", "2",
     "--tensor-model-parallel-size 2 --num-experts 8 --expert-model-parallel-size 2 --sequence-parallel"),
    ("JOB417", "--num-virtual-stages-per-pipeline-rank 2", "2",
     "--pipeline-model-parallel-size 2 --num-virtual-stages-per-pipeline-rank 2"),
]


def _line(extra: str) -> str:
    return BASE + extra


@pytest.mark.parametrize("code,bad,token,good", CASES, ids=[c[0] for c in CASES])
def test_job_rule(tmp_path, code, bad, token, good):
    line = _line(bad)
    report = lint_repo(tmp_path / "bad", {"train.sh": ENV + line + "\n"})
    f = only(report, code)
    # the finding's token: the last occurrence in the extra args, or in the base when not there
    if token in bad:
        expected = len(BASE) + bad.rindex(token) + 1 if code not in ("JOB416",) else len(BASE) + bad.rindex("--expert-model-parallel-size 2") + len("--expert-model-parallel-size ") + 1
    else:
        expected = line.index(token) + 1
    if code == "JOB405":
        expected = line.index("--num-layers 32") + len("--num-layers ") + 1
    assert at(f) == (2, expected), (f.message, at(f), expected)
    good_report = lint_repo(tmp_path / "good", {"train.sh": ENV + _line(good) + "\n"})
    assert not [x for x in good_report.findings if x.code == code], [x.message for x in good_report.findings]


def test_job413_cuda_device_max_connections(tmp_path):
    text = "export CUDA_DEVICE_MAX_CONNECTIONS=8\n" + _line("--tensor-model-parallel-size 2") + "\n"
    f = only(lint_repo(tmp_path / "b", {"t.sh": text}), "JOB413")
    assert at(f) == (1, 36) and "requires 1" in f.message
    good = ENV + _line("--tensor-model-parallel-size 2") + "\n"
    assert not [x for x in lint_repo(tmp_path / "g", {"t.sh": good}).findings if x.code == "JOB413"]


MPIRUN_X = """mpirun -np 16 --npernode 8 -x MASTER_ADDR=node1 -x CUDA_DEVICE_MAX_CONNECTIONS={v} \\
  python pretrain_gpt.py --tensor-model-parallel-size 2 --num-layers 32 --hidden-size 4096 \\
  --num-attention-heads 32 --seq-length 2048 --max-position-embeddings 2048 --micro-batch-size 1 \\
  --global-batch-size 64 --bf16
"""


def test_job413_reads_what_mpirun_x_sets_for_the_ranks(tmp_path):
    # llm-jp's Megatron launches set it only with Open MPI's -x, which reaches every rank
    f = only(lint_repo(tmp_path / "b", {"t.sh": MPIRUN_X.format(v=8)}), "JOB413")
    assert at(f) == (1, len("mpirun -np 16 --npernode 8 -x MASTER_ADDR=node1 -x CUDA_DEVICE_MAX_CONNECTIONS=") + 1)
    assert "CUDA_DEVICE_MAX_CONNECTIONS=8 but TP=2" in f.message
    good = lint_repo(tmp_path / "g", {"t.sh": MPIRUN_X.format(v=1)})
    assert not [x for x in good.findings if x.code == "JOB413"]
    forwarded = lint_repo(tmp_path / "f", {"t.sh": MPIRUN_X.replace("CUDA_DEVICE_MAX_CONNECTIONS={v}",
                                                                    "CUDA_DEVICE_MAX_CONNECTIONS")})
    assert not [x for x in forwarded.findings if x.code == "JOB413"]


def test_job418_slurm_double_launch(tmp_path):
    text = "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=8\n" + ENV + "srun " + _line("") + "\n"
    f = only(lint_repo(tmp_path / "b", {"t.sbatch": text}), "JOB418")
    assert at(f) == (3, 27)
    good = text.replace("--ntasks-per-node=8", "--ntasks-per-node=1")
    assert not [x for x in lint_repo(tmp_path / "g", {"t.sbatch": good}).findings if x.code == "JOB418"]


def test_job418_accelerate_is_a_per_node_launcher_too(tmp_path):
    # round 18: accelerate launch runs num_processes / num_machines processes on its node (utils/launch.py)
    line = ("srun accelerate launch --num_processes 16 --num_machines 2 --use_deepspeed pretrain_gpt.py "
            "--tensor-model-parallel-size 2 --num-layers 2 --hidden-size 64 --num-attention-heads 4 "
            "--micro-batch-size 1 --global-batch-size 8\n")
    text = "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=8\n" + ENV + line
    f = only(lint_repo(tmp_path / "b", {"t.sbatch": text}), "JOB418")
    assert at(f) == (3, 27) and f.message.startswith("8 Slurm tasks per node each start accelerate with 8 processes")
    good = text.replace("--ntasks-per-node=8", "--ntasks-per-node=1")
    assert not [x for x in lint_repo(tmp_path / "g", {"t.sbatch": good}).findings if x.code == "JOB418"]


DS_BAD = """{
  "train_batch_size": 6,
  "train_micro_batch_size_per_gpu": 4,
  "gradient_accumulation_steps": 1,
  "fp16": {"enabled": true},
  "bf16": {"enabled": true},
  "zero_optimization": {"stage": 2, "overlap_com": true, "cpu_offload": true,
                        "offload_optimizer": {"device": "cpu", "ratio": 0.5}},
  "gradient_clipping": "auto"
}
"""
DS_GOOD = """{
  "train_batch_size": 8,
  "train_micro_batch_size_per_gpu": 4,
  "gradient_accumulation_steps": 1,
  "bf16": {"enabled": true},
  "zero_optimization": {"stage": 3, "overlap_comm": true, "offload_optimizer": {"device": "cpu", "ratio": 0.5}}
}
"""


@pytest.mark.parametrize("code,pos", [("JOB430", (2, 23)), ("JOB410", (6, 23)), ("JOB432", (7, 37)),
                                      ("JOB433", (7, 58)), ("JOB434", (8, 73)), ("JOB431", (9, 24))])
def test_deepspeed_rules(tmp_path, code, pos):
    f = only(lint_repo(tmp_path / "b", {"ds_config.json": DS_BAD}), code)
    assert at(f) == pos, f.message
    assert not [x for x in lint_repo(tmp_path / "g", {"ds_config.json": DS_GOOD}).findings if x.code == code]


def test_job432_did_you_mean_and_job433_fix(tmp_path):
    report = lint_repo(tmp_path, {"ds_config.json": DS_BAD})
    f = only(report, "JOB432")
    assert "did you mean 'overlap_comm'" in f.message and f.fix.edits[0].replacement == '"overlap_comm"'


def test_deepspeed_hjson_comments_keep_positions(tmp_path):
    text = '{\n  // comment\n  "train_batch_size": 6,\n  "train_micro_batch_size_per_gpu": 4,\n' \
           '  "gradient_accumulation_steps": 1,\n}\n'
    report = lint_repo(tmp_path, {"ds_config.json": text})
    assert at(only(report, "JOB430")) == (3, 23)
    assert only(report, "NL003").severity.name == "INFO"


def test_job435_hostfile(tmp_path):
    f = only(lint_repo(tmp_path / "b", {"hostfile": "worker-1 slots=4\nworker-1 slots=4\n"}), "JOB435")
    assert at(f) == (2, 1)
    assert not [x for x in lint_repo(tmp_path / "g", {"hostfile": "worker-1 slots=4\nworker-2 slots=4\n"}).findings
                if x.code == "JOB435"]


def test_deepspeed_launch_heredoc_config_and_megatron_mismatch(tmp_path):
    text = """#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --gres=gpu:8
GBS=64
cat <<EOT > ds.json
{"train_micro_batch_size_per_gpu": 2, "train_batch_size": $GBS, "zero_optimization": {"stage": 2}}
EOT
srun bash -c "python -m torch.distributed.run --nproc_per_node 8 --nnodes \\$SLURM_NNODES pretrain_gpt.py \\
  --tensor-model-parallel-size 4 --pipeline-model-parallel-size 2 --num-layers 24 --hidden-size 2048 \\
  --num-attention-heads 16 --seq-length 2048 --max-position-embeddings 2048 --micro-batch-size 1 \\
  --global-batch-size $GBS --bf16 --deepspeed --deepspeed_config ds.json"
"""
    report = lint_repo(tmp_path, {"train.slurm": text})
    mism = [f for f in report.findings if f.code == "JOB430"]
    assert any("differs from --micro-batch-size 1" in f.message and at(f) == (7, 36) for f in mism)
    zp = only(report, "JOB434")
    assert "ZeRO stage 2 with PP=2" in zp.message and at(zp) == (7, 96)


def test_job434_communication_data_type_is_case_insensitive(tmp_path):
    """DeepSpeed lower-cases ``communication_data_type`` before checking it (runtime/config.py L256)."""
    bad = '{\n  "train_micro_batch_size_per_gpu": 1,\n  "communication_data_type": "int8"\n}\n'
    f = only(lint_repo(tmp_path / "b", {"ds_config.json": bad}), "JOB434")
    assert at(f) == (3, 30) and "'int8'" in f.message
    good = bad.replace('"int8"', '"BF16"')
    assert not [x for x in lint_repo(tmp_path / "g", {"ds_config.json": good}).findings if x.code == "JOB434"]


def test_job430_global_batch_mismatch_is_a_warning_under_megatron_deepspeed(tmp_path):
    # a Megatron launch with --deepspeed is Megatron-DeepSpeed, whose loop calls set_train_batch_size from
    # --global-batch-size every iteration (microsoft/Megatron-DeepSpeed@f4157bea megatron/training.py
    # L1253-1258): the config's train_batch_size is only checked once, at start-up
    cfg = '{\n  "train_batch_size": 64,\n  "train_micro_batch_size_per_gpu": 1\n}\n'
    line = ("torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 24 --hidden-size 2048 --num-attention-heads 16 "
            "--seq-length 2048 --max-position-embeddings 2048 --micro-batch-size 1 --global-batch-size 1024 "
            "--deepspeed --deepspeed_config ds.json\n")
    report = lint_repo(tmp_path / "bad", {"ds.json": cfg, "run.sh": line})
    f = next(f for f in report.findings if f.code == "JOB430" and "differs from --global-batch-size" in f.message)
    assert f.file == "ds.json" and at(f) == (2, 23) and f.severity.name == "WARNING"
    assert "so 1024 runs" in f.message
    good = lint_repo(tmp_path / "good", {"ds.json": cfg.replace("64", "1024"), "run.sh": line})
    assert not [x for x in good.findings if x.code == "JOB430" and "differs" in x.message]


def test_job432_fp16_key_is_rejected_since_deepspeed_0_17_1(tmp_path):
    # FlagAlpha/Llama2-Chinese ds_config_zero3.json: fp16_opt_level (an apex option) under fp16
    text = '{\n  "train_micro_batch_size_per_gpu": 1,\n  "fp16": {"enabled": true, "fp16_opt_level": "O2"}\n}\n'
    f = only(lint_repo(tmp_path, {"ds_config.json": text}), "JOB432")
    assert at(f) == (3, 29) and "DeepSpeed 0.17.1 and later stop" in f.message and "earlier releases ignore" in f.message


def test_an_evaluation_entry_point_is_not_judged_as_training(tmp_path):
    # round 19 (bigscience-workshop/Megatron-DeepSpeed run_evalharness_deepspeed.slurm): a deliberate micro batch
    # different from the config's, the pipeline's micro-batch count set by the harness, `-1` placeholder sizes
    ds = '{"train_micro_batch_size_per_gpu": 1, "train_batch_size": 1, "zero_optimization": {"stage": 0}}'
    line = ("torchrun --nproc_per_node 8 {entry} --tensor-model-parallel-size 1 --pipeline-model-parallel-size 8 "
            "--micro-batch-size 6 --num-layers -1 --hidden-size -1 --num-attention-heads -1 --seq-length -1 "
            "--deepspeed --deepspeed_config ds.json\n")
    ev = lint_repo(tmp_path / "e", {"run.sh": line.format(entry="tasks/eval_harness/evaluate.py"), "ds.json": ds})
    assert [f.code for f in ev.findings if f.code in ("JOB430", "FAB505")] == []
    train = lint_repo(tmp_path / "t", {"run.sh": line.format(entry="pretrain_gpt.py"), "ds.json": ds})
    assert {f.code for f in train.findings} >= {"JOB430", "FAB505"}
    from netlint.fabric.shape import from_job
    from netlint.models.job import training_jobs

    (job,) = training_jobs(ev.workspace)
    assert from_job(job)[0] is None and "layers" in from_job(job)[1]  # no '-0.00B parameters' model


def test_job403_megatron_deepspeed_lowers_pp_to_what_the_world_holds(tmp_path):
    # round 22 (idriscnrs/JZ-Megatron-DeepSpeed weight conversion: 2 GPUs, TP 2, PP 2): Megatron-DeepSpeed
    # sets PP = min(PP, world // TP) before it asserts (megatron/arguments.py), so the job starts with PP 1
    line = ("torchrun --nproc_per_node 2 pretrain_gpt.py --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 "
            "--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --micro-batch-size 1 --global-batch-size 8 "
            "--deepspeed --deepspeed_config ds.json\n")
    f = only(lint_repo(tmp_path / "mds", {"run.sh": ENV + line}), "JOB403")
    assert f.severity.name == "INFO" and at(f) == (2, col(line, "--pipeline-model-parallel-size 2") + 31) and "lowers PP from 2 to 1" in f.message
    plain = lint_repo(tmp_path / "mlm", {"run.sh": ENV + line.replace(" --deepspeed --deepspeed_config ds.json", "")})
    assert only(plain, "JOB403").severity.name == "ERROR"   # Megatron-LM asserts


@pytest.mark.parametrize("entry, bubble", [("tools/hf2megads_weight_converter.py", False),
                                           ("tools/checkpoint/convert.py", False),
                                           ("tools/generate_samples_gpt.py", False), ("pretrain_gpt.py", True)])
def test_fab505_only_for_an_entry_that_steps(tmp_path, entry, bubble):
    # round 22 (JZ-Megatron-DeepSpeed convert_weight_llama3_70b.slurm): a weight converter builds the model,
    # saves a checkpoint and never steps, so no step has a pipeline bubble
    line = (f"torchrun --nproc_per_node 8 --nnodes 2 {entry} --tensor-model-parallel-size 1 "
            "--pipeline-model-parallel-size 16 --num-layers 32 --hidden-size 4096 --num-attention-heads 32 "
            "--micro-batch-size 1 --global-batch-size 1\n")
    found = [at(f) for f in lint_repo(tmp_path, {"run.sh": ENV + line}).findings if f.code == "FAB505"]
    assert bool(found) is bubble


def test_job432_a_key_a_deepspeed_fork_in_the_repository_reads(tmp_path):
    # round 22 (mlcommons training_results_v3.1 Intel-HabanaLabs: deepspeed-fork/ reads
    # bf16.accumulate_grads_via_hooks, runtime/constants.py BFLOAT16_GRAD_ACC_VIA_HOOKS)
    cfg = '{\n  "train_batch_size": 8,\n  "bf16": {"enabled": true, "accumulate_grads_via_hooks": true}\n}\n'
    files = {"ds.json": cfg, "run.sh": "deepspeed --num_gpus 8 train.py --deepspeed_config ds.json\n"}
    f = only(lint_repo(tmp_path / "up", files), "JOB432")
    assert at(f) == (3, 29) and f.file == "ds.json"
    fork = 'BFLOAT16 = "bf16"\nBFLOAT16_GRAD_ACC_VIA_HOOKS = "accumulate_grads_via_hooks"\n'
    report = lint_repo(tmp_path / "fork", dict(files, **{"deepspeed-fork/deepspeed/runtime/constants.py": fork}))
    assert [x for x in report.findings if x.code == "JOB432"] == []
