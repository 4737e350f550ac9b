"""`deepspeed --include host:slots@host:slots`: the world is the slots it names (DeepSpeed's
launcher/runner.py parse_resource_filter). Round 14: `--include localhost:0,1,2,3` left the world unknown
and a batch mismatch unreported."""

from __future__ import annotations

from tests.conftest import at, lint_repo

DS = '{"train_batch_size": 752, "train_micro_batch_size_per_gpu": 188, "gradient_accumulation_steps": 2}'


def _job(report):
    (job,) = [j for j in report.workspace.jobs if getattr(j, "launch", None) is not None]
    return job


def test_slots_named_on_one_host_fix_the_world(tmp_path):
    report = lint_repo(tmp_path, {"run.sh": "deepspeed --include localhost:0,1,2,3 train.py --deepspeed "
                                            "--deepspeed_config ds.json\n", "ds.json": DS})
    assert _job(report).world_size.value == 4
    assert [at(f) for f in report.findings if f.code == "JOB430"] == [(1, 22)]


def test_uneven_hosts_sum_and_a_host_without_slots_is_left_to_the_hostfile(tmp_path):
    uneven = lint_repo(tmp_path / "u", {"run.sh": "deepspeed -i w0:0,1@w1:0 train.py --deepspeed\n"})
    assert _job(uneven).world_size.value == 3
    bare = lint_repo(tmp_path / "b", {"run.sh": "deepspeed --include w0@w1 train.py --deepspeed\n"})
    assert _job(bare).world_size is None


def test_a_unique_prefix_of_a_launcher_option_is_that_option(tmp_path):
    # argparse's allow_abbrev (round 14: `--nnode=2` modelled 8 ranks instead of 16)
    report = lint_repo(tmp_path, {"run.sh": "python -m torch.distributed.run --nproc_per_node=8 --nnode=2 "
                                            "--node_rank=0 train.py --deepspeed --deepspeed_config ds.json\n"})
    assert _job(report).world_size.value == 16


def test_a_hostfile_read_through_a_launch_is_shown_and_its_faults_named(tmp_path):
    # round 14: --show-files said "skipped" for a hostfile JOB435 had judged, and NL012 said it was missing
    from netlint.engine import Options, lint

    files = {"run.sh": "deepspeed --hostfile ./configs/ds_hostfile train.py --deepspeed\n",
             "configs/ds_hostfile": "node1 slots=8\nnode1 slots=8\n"}
    report = lint_repo(tmp_path, files)
    (nl,) = [f for f in report.findings if f.code == "NL012" and "world size" in f.message]
    assert "has entries DeepSpeed rejects (JOB435)" in nl.message
    shown = dict(lint(Options(paths=[tmp_path], show_files=True)).shown)
    assert shown["configs/ds_hostfile"] == "deepspeed-hostfile (read through run.sh)"


def test_a_slot_that_is_no_integer_stops_the_launcher(tmp_path):
    # round 15 (Uni-Sign): `--include localhost:0--master_port 29511`, a space lost
    bad = lint_repo(tmp_path / "b", {"run.sh": "deepspeed --include localhost:0--master_port 29511 pretrain_gpt.py "
                                                "--num-layers 2 --deepspeed\n"})
    assert [(at(f), "`0--master_port`" in f.message) for f in bad.findings if f.code == "JOB436"] == [((1, 21), True)]
    good = lint_repo(tmp_path / "g", {"run.sh": "deepspeed --include w0:0,1@w1 pretrain_gpt.py --num-layers 2 --deepspeed\n"})
    assert [f for f in good.findings if f.code == "JOB436"] == []


def test_an_option_the_launcher_does_not_define_stops_it(tmp_path):
    # runner.py parse_args: parser.parse_args exits with 'unrecognized arguments' (round 19's P8, left open)
    line = "deepspeed --nproc_per_node 8 --num_gpu 8 train.py --deepspeed --deepspeed_config ds.json\n"
    (f,) = [f for f in lint_repo(tmp_path / "t", {"run.sh": line}).findings if f.code == "JOB436"]
    assert at(f) == (1, 11) and "--nproc_per_node is not an option" in f.message and "--num_gpus" in f.message
    # a prefix of an option (--num_gpu), the runner's newer options and the script's own arguments are fine
    good = ("deepspeed --num_gpu 8 --enable_each_rank_log /logs --venv_script env.sh --log_level info "
            "train.py --nproc_per_node 8 --deepspeed_config ds.json\n")
    assert [f for f in lint_repo(tmp_path / "g", {"run.sh": good}).findings if f.code == "JOB436"] == []
    early = "deepspeed --deepspeed train.py --deepspeed_config ds.json\n"
    (f,) = [f for f in lint_repo(tmp_path / "e", {"run.sh": early}).findings if f.code == "JOB436"]
    assert at(f) == (1, 11) and "an argument of the training script" in f.message
