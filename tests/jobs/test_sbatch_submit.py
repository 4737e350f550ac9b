"""A submit script that runs `sbatch [options] job.slurm` and has no launch of its own: the job is the
batch script's launch with the sbatch line's options over its #SBATCH header and the environment
--export gives it (sbatch(1) --export: NAME=value sets NAME; with ALL the caller's own exported value
wins; without ALL only the listed names and SLURM_* reach the job)."""

from __future__ import annotations

import pytest

from conftest import at, lint_repo, only

JOB = ("#!/bin/bash\n#SBATCH --ntasks-per-node=1\n#SBATCH --gres=gpu:4\n"
       "srun torchrun --nproc_per_node 4 --nnodes $SLURM_NNODES pretrain_gpt.py --tensor-model-parallel-size $TP "
       "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --micro-batch-size 1 --global-batch-size 8\n")


def _joined(report):
    from netlint.models.job import training_jobs

    return [j for j in training_jobs(report.workspace) if j.file == "submit.sh"]


def _sizes(job):
    return job.int("world_size"), job.int("tp"), job.int("dp")


def test_export_values_and_nodes_of_the_sbatch_line_reach_the_batch_script(tmp_path):
    # round 17 (Lucie-Training submit_jobs.sh): TP came only through --export and stayed unknown
    report = lint_repo(tmp_path, {"job.slurm": JOB, "submit.sh": "#!/bin/bash\nsbatch --export=ALL,TP=2 --nodes 2 job.slurm\n"})
    (job,) = _joined(report)
    assert _sizes(job) == (8, 2, 4) and not job.name
    assert [(n, (s.file, s.line)) for n, s in job.notes if "sbatch" in n] == [
        ("followed `sbatch job.slurm` with the options of that command", ("submit.sh", 2))]


def test_with_all_the_callers_exported_value_wins_and_without_it_only_listed_names_pass(tmp_path):
    exported = "#!/bin/bash\nexport TP=4\nsbatch --export=ALL,TP=2 -N 2 job.slurm\n"
    (job,) = _joined(lint_repo(tmp_path / "a", {"job.slurm": JOB, "submit.sh": exported}))
    assert _sizes(job) == (8, 4, 2)
    listed = "#!/bin/bash\nexport TP=4\nsbatch --export=TP=2 -N 2 job.slurm\n"
    (job,) = _joined(lint_repo(tmp_path / "b", {"job.slurm": JOB, "submit.sh": listed}))
    assert _sizes(job) == (8, 2, 4)
    dropped = "#!/bin/bash\nexport TP=4\nsbatch --export=NCCL_DEBUG=INFO -N 2 job.slurm\n"
    (job,) = _joined(lint_repo(tmp_path / "c", {"job.slurm": JOB, "submit.sh": dropped}))
    assert job.tp is None and "tp" in job.unknown


def test_jobs_of_several_sbatch_lines_are_named_by_both_lines(tmp_path):
    submit = "#!/bin/bash\nsbatch --export=ALL,TP=1 -N 2 job.slurm\nsbatch --export=ALL,TP=$1 -N 2 job.slurm\n"
    jobs = _joined(lint_repo(tmp_path, {"job.slurm": JOB, "submit.sh": submit}))
    assert [(j.name, j.int("tp")) for j in jobs] == [("submit.sh:2 → job.slurm:4", 1), ("submit.sh:3 → job.slurm:4", None)]
    assert "$1" in str(jobs[1].unknown["tp"])


def test_an_assignment_before_sbatch_reaches_the_batch_script(tmp_path):
    # round 18 (eth-cscs/mlcommons-training submit scripts): `GBS=4 sbatch …`; sbatch exports ALL by default
    job = JOB.replace("--tensor-model-parallel-size $TP", "--tensor-model-parallel-size $TP_SIZE")
    (j,) = _joined(lint_repo(tmp_path, {"job.slurm": job, "submit.sh": "#!/bin/bash\nTP_SIZE=2 sbatch -N 2 job.slurm\n"}))
    assert _sizes(j) == (8, 2, 4)


def test_export_none_in_the_batch_script_or_sbatch_export_keeps_the_callers_values_out(tmp_path):
    # sbatch(1): #SBATCH --export=NONE, or SBATCH_EXPORT=NONE in the caller's environment (the command line wins
    # over the variable, which wins over the directive)
    submit = "#!/bin/bash\nexport TP=2\nsbatch -N 2 job.slurm\n"
    none = JOB.replace("#SBATCH --ntasks-per-node=1\n", "#SBATCH --ntasks-per-node=1\n#SBATCH --export=NONE\n")
    (j,) = _joined(lint_repo(tmp_path / "d", {"job.slurm": none, "submit.sh": submit}))
    assert j.tp is None and "tp" in j.unknown
    (j,) = _joined(lint_repo(tmp_path / "v", {"job.slurm": JOB, "submit.sh": submit.replace(
        "export TP=2\n", "export TP=2\nexport SBATCH_EXPORT=NONE\n")}))
    assert j.tp is None
    (j,) = _joined(lint_repo(tmp_path / "c", {"job.slurm": none, "submit.sh": submit.replace("sbatch", "sbatch --export=ALL")}))
    assert _sizes(j) == (8, 2, 4)


def test_several_launches_of_one_batch_script_are_named_by_the_sbatch_line(tmp_path):
    two = JOB + JOB.splitlines()[-1] + "\n"
    jobs = _joined(lint_repo(tmp_path, {"job.slurm": two, "submit.sh": "#!/bin/bash\nsbatch --export=ALL,TP=2 -N 2 job.slurm\n"}))
    assert [j.name for j in jobs] == ["submit.sh:2 → job.slurm:4", "submit.sh:2 → job.slurm:5"]


def test_arguments_after_the_batch_script_are_its_positional_parameters(tmp_path):
    # sbatch(1) SYNOPSIS: sbatch [OPTIONS...] script [args...] (round 18: awsome-distributed-training)
    job = JOB.replace("#SBATCH --gres=gpu:4\n", "#SBATCH --gres=gpu:4\nshift\nTP=$1\n")
    (j,) = _joined(lint_repo(tmp_path, {"job.slurm": job, "submit.sh": "#!/bin/bash\nsbatch -N 2 job.slurm finetune 2\n"}))
    assert _sizes(j) == (8, 2, 4) and (j.tp.span.file, j.tp.span.line) == ("job.slurm", 6)


def test_a_job_submitted_inside_a_command_substitution_is_followed(tmp_path):
    # round 18: JOBID=$(sbatch --parsable …) is how sweep scripts keep the job id
    submit = "#!/bin/bash\nJOBID=$(sbatch --parsable --export=ALL,TP=2 -N 2 job.slurm)\necho $JOBID\n"
    (j,) = _joined(lint_repo(tmp_path, {"job.slurm": JOB, "submit.sh": submit}))
    assert _sizes(j) == (8, 2, 4)


def test_a_batch_script_written_by_a_here_document_and_submitted_is_read(tmp_path):
    # round 18: `cat > job.slurm <<EOF … EOF` then `sbatch job.slurm` is read like `sbatch <<EOF`
    submit = ("#!/bin/bash\nN=2\ncat > job.slurm <<EOF\n#!/bin/bash\n#SBATCH --nodes=$N\n#SBATCH --ntasks-per-node=1\n"
              "srun torchrun --nnodes $N --nproc_per_node 4 pretrain_gpt.py --num-layers 2 --hidden-size 64 "
              "--num-attention-heads 4 --micro-batch-size 4 --global-batch-size 24 --job \\$SLURM_JOB_ID\nEOF\n"
              "sbatch job.slurm\n")
    report = lint_repo(tmp_path, {"submit.sh": submit})
    f = only(report, "JOB408")
    assert (f.file, f.span.line) == ("submit.sh", 7) and "global batch 24 is not divisible by micro batch 4 × DP 8" in f.message


def test_an_unknown_option_word_before_the_batch_script_keeps_the_link(tmp_path):
    # round 18 (dice-group/LOLA): `sbatch --nodes=$NNODES $EXTRA_PARAMS job.sh`, EXTRA_PARAMS set per branch
    submit = ('#!/bin/bash\nEXTRA=""\nif [ "$Q" = dev ]; then\n  EXTRA=" --qos=devel "\nfi\n'
              "sbatch --export=ALL,TP=2 -N 2 $EXTRA job.slurm\n")
    (j,) = _joined(lint_repo(tmp_path, {"job.slurm": JOB, "submit.sh": submit}))
    assert _sizes(j) == (8, 2, 4)


@pytest.mark.parametrize("idiom", ['"$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"', '$(dirname "$0")',
                                   '"$(dirname "$(realpath "$0")")"', '$( cd $(dirname $0) >/dev/null 2>&1; pwd -P )'])
def test_the_scripts_own_folder_idiom_resolves_beside_the_script(tmp_path, idiom):
    # round 18 (awsome-distributed-training sweep_runner.sh): SCRIPT_DIR=… then sbatch "${SCRIPT_DIR}/slurm/job.sbatch"
    submit = (f"#!/bin/bash\nHERE={idiom}\nsource \"$HERE/env.sh\"\n"
              'sbatch --export=ALL,TP=$TP_SIZE -N 2 "${HERE}/slurm/job.slurm"\n')
    files = {"sweep/submit.sh": submit, "sweep/env.sh": "TP_SIZE=2\n", "sweep/slurm/job.slurm": JOB}
    from netlint.models.job import training_jobs

    jobs = [j for j in training_jobs(lint_repo(tmp_path, files).workspace) if j.file == "sweep/submit.sh"]
    assert [_sizes(j) for j in jobs] == [(8, 2, 4)]


def test_a_command_substitution_that_is_not_the_idiom_stays_unknown():
    from netlint.shell.expansion import script_folder_idiom

    assert script_folder_idiom('cd "$(dirname "${BASH_SOURCE[0]}")" && pwd')
    assert not script_folder_idiom("dirname $CONFIG") and not script_folder_idiom("cd /opt && pwd")


def test_a_finding_on_a_launch_in_a_here_document_batch_script_points_inside_it(tmp_path):
    # round 19: JOB413 was placed at the `<<EOT` operator, not at the launch inside the document
    submit = ("#!/bin/bash\ncat > gen.slurm <<EOT\n#!/bin/bash\n#SBATCH --nodes=1\n"
              "srun torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 2 --num-layers 2\nEOT\n"
              "sbatch gen.slurm\n")
    f = only(lint_repo(tmp_path, {"submit.sh": submit}), "JOB413")
    assert (f.file, f.span.line, f.span.col) == ("submit.sh", 5, 34)


def test_the_script_folder_idiom_with_end_of_options(tmp_path):
    # round 23 (THUDM/slime: SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" &>/dev/null && pwd)",
    # then `source "${SCRIPT_DIR}/models/kimi-k2.sh"`): the sourced model file was not read
    from netlint.shell.expansion import script_folder_idiom

    assert script_folder_idiom('cd -- "$(dirname -- "${BASH_SOURCE[0]}")" &> /dev/null && pwd')
    assert script_folder_idiom('dirname -- "$0"')
    run = ('#!/bin/bash\nSCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" &>/dev/null && pwd)"\n'
           'source "${SCRIPT_DIR}/models/m.sh"\n'
           "torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 4 ${MODEL_ARGS[@]}\n")
    model = "MODEL_ARGS=(\n   --num-layers 4\n   --hidden-size 64\n   --num-attention-heads 6\n)\n"
    report = lint_repo(tmp_path, {"scripts/run.sh": run, "scripts/models/m.sh": model})
    assert [(f.file, *at(f)) for f in report.findings if f.code == "JOB406"] == [("scripts/models/m.sh", 4, 26)]
