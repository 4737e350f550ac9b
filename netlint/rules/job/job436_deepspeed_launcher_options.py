from __future__ import annotations

from netlint.findings import Severity
from netlint.rules.base import Rule


class DeepSpeedLauncherOptions(Rule):
    """``deepspeed`` launcher options it refuses: together, or at all.

    **What**: ``--include`` or ``--exclude`` beside ``--num_nodes`` or ``--num_gpus``; ``--include``
    beside ``--exclude``; a slot of ``--include``/``--exclude`` that is no integer (``localhost:0--master_port``
    with a space lost, ``node1:0-3``: ranges are not read); an option before the script that the
    launcher's parser does not define (torchrun's ``--nproc_per_node``/``--nnodes``, a training argument
    such as ``--deepspeed_config`` written before the script). argparse takes a unique prefix of an
    option (``--num_gpu``), so only a word no option starts with is reported.

    **Why**: the runner checks its arguments before it starts anything: "Cannot specify num_nodes/gpus
    with include/exclude" (``ValueError``), and include/exclude are "mutually exclusive" — the launch
    stops at once, on every node, whatever the values (deepspeedai/DeepSpeed@edaa7221
    deepspeed/launcher/runner.py L462-464 in ``main``, and ``parse_resource_filter``; the same checks
    since 2020).

    **Bad**: ``deepspeed --include localhost:0,1 --num_gpus 2 train.py``
    **Good**: ``deepspeed --include localhost:0,1 train.py`` (or ``--num_gpus 2`` alone)

    An undefined option stops the runner too: ``parse_args`` ends with ``parser.parse_args``, which
    exits with "unrecognized arguments" for an option it does not know (the script's own arguments
    after ``user_script`` are ``argparse.REMAINDER``, never judged).

    **Source**: deepspeedai/DeepSpeed@edaa7221 deepspeed/launcher/runner.py L48-227 (``parse_args``:
    every option; ``user_args`` ``nargs=argparse.REMAINDER``), L462-464 (``main``),
    ``parse_resource_filter``; microsoft/DeepSpeed@38327e07 deepspeed/launcher/runner.py L268-276
    (``parse_node_config``: ``[int(x) for x in slots.split(',')]``).
    """

    code = "JOB436"
    name = "deepspeed-launcher-options"
    severity = Severity.ERROR
    summary = ("deepspeed launcher options it refuses (one it does not define, --include/--exclude with "
               "--num_gpus/--num_nodes, a slot that is no integer)")

    def check(self, ws):
        from netlint.jobs.launch import find_launch
        from netlint.models.job import training_jobs

        seen: set = set()
        for job in training_jobs(ws):
            if job.launcher != "deepspeed" or job.launch is None or id(job.launch) in seen:
                continue
            seen.add(id(job.launch))
            launch = find_launch(job.launch)
            if launch is None:
                continue
            if launch.undefined:
                yield _undefined(self, job, launch.undefined[0])
                continue
            opts = {k.replace("-", "_"): v for k, v in launch.opts.items()}
            pick = [opts[n] for n in ("include", "i", "exclude", "e") if n in opts]
            count = [(n, opts[n]) for n in ("num_nodes", "num_gpus") if n in opts]
            names = [n for n in ("include", "exclude") if n in opts or n[0] in opts]
            if pick and count:
                name, word = count[0]
                yield self.finding(f"--{name} with --{names[0]}: the deepspeed launcher stops with 'Cannot specify "
                                   f"num_nodes/gpus with include/exclude'", _flag_span(job.launch, word),
                                   key=f"{job.file}:{job.launch.span.line}:include-and-count")
            elif len(names) == 2:
                word = opts.get("exclude") or opts.get("e")
                yield self.finding("--include with --exclude: the deepspeed launcher stops ('include_str and "
                                   "exclude_str are mutually exclusive')", _flag_span(job.launch, word),
                                   key=f"{job.file}:{job.launch.span.line}:include-and-exclude")
            for word in pick:
                bad = _bad_slot(word.value) if isinstance(word.value, str) else None
                if bad is not None:
                    yield self.finding(f"`{bad}` in `{word.value}` is no GPU index: the deepspeed launcher reads the "
                                       "slots after `host:` with int() and stops (HOST:SLOT[,SLOT…], hosts joined "
                                       "by @)", word.span, key=f"{job.file}:{job.launch.span.line}:bad-slot")


# torchrun's options written to the deepspeed launcher, and the runner's own spelling of the same thing
_TORCHRUN_TWINS = {"nproc-per-node": "--num_gpus", "nnodes": "--num_nodes", "rdzv-endpoint": "--master_addr/--master_port"}


def _undefined(rule, job, word):
    from netlint.jobs.launch import TORCHRUN_OPTS

    written = str(word.value).split("=", 1)[0]
    name = written.lstrip("-").replace("_", "-")
    if name in _TORCHRUN_TWINS:
        hint = f" (torchrun's option; the deepspeed launcher's is {_TORCHRUN_TWINS[name]})"
    elif name in TORCHRUN_OPTS:
        hint = " (a torchrun option)"
    elif name.startswith("deepspeed"):
        hint = " (an argument of the training script: write it after the script)"
    else:
        hint = ""
    return rule.finding(f"{written} is not an option of the deepspeed launcher{hint}: its parser stops with "
                        f"'unrecognized arguments' before anything starts", word.span,
                        key=f"{job.file}:{job.launch.span.line}:undefined:{written}")


def _bad_slot(text: str) -> str | None:
    """The first slot of an --include/--exclude value that int() cannot read (``0--master_port``, ``0-3``)."""
    for node in text.split("@"):
        if ":" not in node:
            continue
        for slot in node.split(":", 1)[1].split(","):
            try:
                int(slot)
            except ValueError:
                return slot
    return None


def _flag_span(cmd, value):
    """The option's own word (``--num_gpus`` of ``--num_gpus 2``), else its value."""
    for i, w in enumerate(cmd.argv):
        if w is value and i > 0:
            prev = cmd.argv[i - 1]
            if isinstance(prev.value, str) and prev.value.startswith("-"):
                return prev.span
            return w.span
    return value.span
