"""JOB423: `#SBATCH` lines after the first command are comments to sbatch (sbatch(1)). Round 10: nebius
pytorch-dsv3-mxfp8/train_671b.sh puts `set -euo pipefail` above its `#SBATCH --nodes=32`."""

from __future__ import annotations

from tests.conftest import at, lint_repo

LAUNCH = "srun torchrun --nnodes $SLURM_JOB_NUM_NODES --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 2\n"


def _423(report):
    return [f for f in report.findings if f.code == "JOB423"]


def test_directives_after_a_command_are_reported_at_the_first(tmp_path):
    text = "#!/bin/bash\nset -euo pipefail\n\n#SBATCH --nodes=32\n#SBATCH --ntasks-per-node=1\n" + LAUNCH
    (f,) = _423(lint_repo(tmp_path, {"train.sh": text}))
    assert at(f) == (4, 1) and "line 2: `set -euo pipefail`" in f.message
    assert [(r.span.line, r.span.col) for r in f.related] == [(2, 1)]


def test_directives_before_the_first_command_and_heredocs_are_fine(tmp_path):
    good = "#!/bin/bash\n# a comment\n#SBATCH --nodes=32\n\n#SBATCH --ntasks-per-node=1\nset -e\n" + LAUNCH
    assert _423(lint_repo(tmp_path, {"train.sh": good})) == []
    # a script that writes another batch script: its #SBATCH lines are that file's
    writer = ("#!/bin/bash\nset -e\ncat > job.sbatch <<EOF\n#!/bin/bash\n#SBATCH --nodes=2\nEOF\n"
              "export NCCL_DEBUG=WARN\n" + LAUNCH)
    assert _423(lint_repo(tmp_path, {"submit.sh": writer})) == []


def test_job413_waived_by_megatron_llamas_overlapped_optimizer(tmp_path):
    # round 11: alibaba/Megatron-LLaMA's arguments.py waives the check with --overlapped-distributed-optimizer
    base = ("torchrun --nnodes 1 --nproc_per_node 8 pretrain_llama.py --tensor-model-parallel-size 2 "
            "--num-layers 4 --micro-batch-size 1")
    found = [f for f in lint_repo(tmp_path, {"run.sh": base + "\n"}).findings if f.code == "JOB413"]
    assert [at(f) for f in found] == [(1, 1)] and "a fork may not check it" in found[0].message
    found = lint_repo(tmp_path, {"run.sh": base + " --overlapped-distributed-optimizer\n"}).findings
    assert [f for f in found if f.code == "JOB413"] == []


def test_job402_legacy_flag_beside_flags_only_a_fork_defines_is_an_info(tmp_path):
    # sajal-vt/Megatron-DeepSpeed-Summit: its own arguments.py defines --checkpoint-activations (round 12)
    from netlint.findings import Severity

    base = "torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 2 --checkpoint-activations"
    (f,) = [f for f in lint_repo(tmp_path, {"run.sh": base + "\n"}).findings if f.code == "JOB402"]
    assert f.severity == Severity.ERROR and f.fix is not None and at(f) == (1, 76)
    report = lint_repo(tmp_path, {"run.sh": base + " --use-mpi --data-impl mmap\n"})
    (f,) = [f for f in report.findings if f.code == "JOB402"]
    assert f.severity == Severity.INFO and f.fix is None and "--use-mpi" in f.message and at(f) == (1, 76)


def test_job423_late_output_options_do_not_claim_the_default_allocation(tmp_path):
    # round 12: only -o/-e came after the first command; the node and GPU lines were read
    text = "#!/bin/bash\n#SBATCH --nodes=2\nmodule load cuda\n#SBATCH -o out.%j\n" + LAUNCH
    (f,) = _423(lint_repo(tmp_path, {"train.sh": text}))
    assert at(f) == (4, 1) and "the options they give are not applied" in f.message
    assert "default allocation" not in f.message


def test_job423_in_any_batch_script_whether_or_not_a_launch_is_modelled(tmp_path):
    # round 20 (Princeton multi_gpu_training, itwinai): a batch script running `srun python train.py` or a
    # bare `python` has no modelled job and no NCCL setting, and its late #SBATCH was not looked at
    for n, body in enumerate(("srun python train.py --epochs 3\n", "python train.py\n")):
        text = "#!/bin/bash\n#SBATCH --output=x.out\nmodule load anaconda3\n#SBATCH --nodes=2\n" + body
        report = lint_repo(tmp_path / str(n), {"job.slurm": text})
        (f,) = _423(report)
        assert at(f) == (4, 1) and "default allocation" in f.message
        both = lint_repo(tmp_path / f"nccl{n}",
                         {"job.slurm": text.replace("module load", "export NCCL_DEBUG=WARN\nmodule load")})
        assert [at(f) for f in _423(both)] == [(5, 1)]  # read by both shell loaders, said once
