"""A training launch in a Kubernetes container's command/args: netlint reads the container's env and
mpirun options but builds no job from it, and says so (NL012 info at the launch) instead of passing in
silence. Round 9: aws-do-eks ElasticJob (torchrun) and ai-on-eks esm2nv PyTorchJob (torch.distributed.run)."""

from __future__ import annotations

from tests.conftest import at, lint_repo

HEAD = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: gpt}
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - name: pytorch
            image: nvcr.io/nvidia/pytorch:24.07-py3
"""


def _nl012(report):
    return [(f.file, *at(f)) for f in report.findings if f.code == "NL012" and "launch not read" in f.message]


def test_a_launcher_argv_without_nccl_settings_is_said_unread(tmp_path):
    text = HEAD + '            command: ["torchrun", "--nnodes=2", "--nproc-per-node=8", "pretrain_gpt.py"]\n'
    report = lint_repo(tmp_path, {"job.yaml": text})
    assert _nl012(report) == [("job.yaml", 13, 24)]  # the word torchrun, inside its quotes
    assert report.workspace.nccl_envs == []  # nothing else to judge in that container


def test_a_bash_c_launch_beside_an_env_is_said_and_the_env_still_read(tmp_path):
    text = HEAD + ("            env:\n            - {name: NCCL_DEBUG, value: INFO}\n"
                   '            command: ["bash", "-c"]\n'
                   '            args: ["python -m torch.distributed.run --nproc_per_node 4 train.py"]\n')
    report = lint_repo(tmp_path, {"job.yaml": text})
    assert _nl012(report) == [("job.yaml", 16, 31)]
    assert [(f.code, *at(f)) for f in report.findings if f.code == "NCCL314"] == [("NCCL314", 14, 41)]


def test_commands_that_only_install_or_test_are_not_launches(tmp_path):
    text = HEAD + ("            env:\n            - {name: NCCL_DEBUG, value: WARN}\n"
                   '            command: ["bash", "-c", "pip install deepspeed && /opt/nccl-tests/all_reduce_perf"]\n')
    assert _nl012(lint_repo(tmp_path, {"job.yaml": text})) == []


def test_a_launch_that_is_only_printed_is_no_launch(tmp_path):
    # ml-dev-env GOLD-STANDARD-NCCL-BENCHMARK.yaml: the container echoes torchrun instructions, then sleeps
    text = HEAD + ('            command: ["bash", "-c"]\n'
                   '            args: ["echo \\"run: torchrun --nnodes=8 train.py\\"\\nsleep infinity"]\n')
    assert _nl012(lint_repo(tmp_path, {"job.yaml": text})) == []


def test_an_mpijob_whose_mpirun_runs_a_training_script_is_said_unread(tmp_path):
    # aws-samples/aws-efa-eks megatron8B-efa-example.yaml: `mpirun -np 16 … /fsx/train_8B_gpt2.sh`, no NCCL variable
    text = HEAD.replace("kind: PyTorchJob", "kind: MPIJob") + \
        '            command: ["mpirun", "-np", "16", "-bind-to", "none", "/fsx/train_8B_gpt2.sh"]\n'
    assert _nl012(lint_repo(tmp_path, {"job.yaml": text})) == [("job.yaml", 13, 23)]
    # an nccl-tests binary is no training launch
    bench = text.replace("/fsx/train_8B_gpt2.sh", "/opt/nccl-tests/build/all_reduce_perf")
    assert _nl012(lint_repo(tmp_path, {"job.yaml": bench})) == []


def test_the_note_points_at_the_launcher_line_inside_a_block(tmp_path):
    # kubernetes-sigs/jobset resnet.yaml: the note pointed at the `- |` line, not the torchrun line under it
    text = HEAD + ('            command:\n            - bash\n            - -xc\n            - |\n'
                   '              echo "starting"\n              torchrun --nnodes=2 --nproc_per_node=8 train.py\n')
    assert _nl012(lint_repo(tmp_path, {"job.yaml": text})) == [("job.yaml", 18, 15)]
