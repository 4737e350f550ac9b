"""JOB422: a `#` that reaches an eval'd launch string through a variable drops the rest of the line."""

from __future__ import annotations

from tests.conftest import at, lint_repo, only

SCRIPT = '''opts="--tensor-model-parallel-size 2 --micro-batch-size 1 {comment}
  --num-layers 4 --deepspeed_config ds.json"
run_cmd="deepspeed --num_nodes 1 --num_gpus 8 pretrain_gpt.py ${{opts}} --deepspeed"
eval ${{run_cmd}}
'''


def test_hash_in_options_string_cuts_the_eval_launch(tmp_path):
    report = lint_repo(tmp_path, {"train.sh": SCRIPT.format(comment="# two GPUs per group")})
    f = only(report, "JOB422")
    assert at(f) == (1, 59)
    assert "3 option(s)" in f.message and "(--num-layers --deepspeed_config --deepspeed)" in f.message
    assert (f.related[0].span.line, f.related[0].span.col) == (4, 1)


def test_no_hash_no_finding(tmp_path):
    report = lint_repo(tmp_path, {"train.sh": SCRIPT.format(comment="")})
    assert not [f for f in report.findings if f.code == "JOB422"]


def test_escaped_blank_then_hash_is_a_word_not_a_comment(tmp_path):
    # `\\  # note` in a double-quoted string: word splitting leaves `\\` and `#`; eval joins them as
    # `\\ #`, which bash reads as the word " #" (an argument), not a comment
    report = lint_repo(tmp_path, {"train.sh": SCRIPT.format(comment="\\\\  # note")})
    assert not [f for f in report.findings if f.code == "JOB422"]
    job = next(j for j in report.workspace.jobs if getattr(j, "launch", None) is not None)
    assert "--deepspeed_config" in job.args
