"""Recognise launch commands in an evaluated shell script (:mod:`netlint.jobs.build` turns one into a
TrainingJob).

Launchers (pytorch/pytorch@010929fd torch/distributed/run.py; microsoft/DeepSpeed@38327e07
deepspeed/launcher/runner.py): ``torchrun``, ``python -m torch.distributed.run|launch``,
``deepspeed``, ``accelerate launch`` (:mod:`netlint.jobs.accelerate`), and ``python pretrain_*.py`` started
once per GPU by ``srun``; wrappers ``srun`` and
``mpirun`` in front of them; ``bash -c`` strings are already expanded by :mod:`netlint.shell`.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from netlint.jobs.values import typed
from netlint.located import Scalar
from netlint.models.job import Arg
from netlint.shell import Command, Unknown

PYTHONS = ("python", "python3")
TORCH_MODULES = ("torch.distributed.run", "torch.distributed.launch")
# Training entry points run as modules, which each process of a launcher starts (torchtitan's trainer)
ENTRY_MODULES = ("torchtitan.train",)
# name (normalized: '_' → '-') → takes a value
TORCHRUN_OPTS = {
    "nnodes": True, "nproc-per-node": True, "node-rank": True, "master-addr": True, "master-port": True,
    "rdzv-backend": True, "rdzv-endpoint": True, "rdzv-id": True, "rdzv-conf": True, "max-restarts": True,
    "monitor-interval": True, "start-method": True, "role": True, "local-addr": True, "log-dir": True,
    "redirects": True, "r": True, "tee": True, "t": True, "local-ranks-filter": True, "logs-specs": True,
    "standalone": False, "module": False, "m": False, "no-python": False, "run-path": False,
    "use-env": False,
}
DEEPSPEED_OPTS = {
    "hostfile": True, "H": True, "include": True, "i": True, "exclude": True, "e": True,
    "num-nodes": True, "num-gpus": True, "num-accelerators": True, "min-elastic-nodes": True,
    "max-elastic-nodes": True, "master-port": True, "master-addr": True, "node-rank": True,
    "launcher": True, "launcher-args": True, "ssh-port": True, "bind-core-list": True, "autotuning": True,
    "module": False, "no-python": False, "no-local-rank": False, "no-ssh": False, "no-ssh-check": False,
    "force-multi": False, "save-pid": False, "enable-each-rank-log": True, "elastic-training": False,
    "bind-cores-to-rank": False, "venv-script": True, "log-level": True, "quiet": False, "q": False,
}
# `accelerate launch` (huggingface/accelerate@16cb6eb8 src/accelerate/commands/launch.py
# launch_command_parser; `accelerate-launch` is the same parser, setup.py console_scripts): options are
# written with '-' or '_' alike; these are its store_true ones, with those of earlier releases that
# scripts still pass (--ipex, --use_xpu at 00785cd9; --fp16, --mps, --use_mps_device before). Every other
# option takes a value, unless an option or the script follows it (argparse takes no `-…` word as a
# value). --num_processes is the total process count over all --num_machines.
ACCELERATE_FLAGS = {
    "help", "h", "quiet", "q", "cpu", "multi-gpu", "tpu", "enable-cpu-affinity", "dynamo-use-fullgraph",
    "dynamo-use-dynamic", "dynamo-use-regional-compilation", "use-deepspeed", "use-fsdp",
    "use-parallelism-config", "use-megatron-lm", "same-network", "module", "m", "no-python", "tpu-cluster",
    "no-tpu-cluster", "tpu-use-sudo", "downcast-bf16", "fp8-use-autocast-during-eval", "debug",
    "ipex", "use-xpu", "fp16", "mps", "use-mps-device",
}
ACCELERATE_OPTS = {name: False for name in ACCELERATE_FLAGS}
ACCELERATE_MODULE = "accelerate.commands.launch"
SRUN_FLAGS = {"l", "label", "exclusive", "overcommit", "O", "u", "unbuffered", "pty", "K",
              "kill-on-bad-exit", "no-container-mount-home", "container-remap-root", "container-writable",
              "v", "verbose", "Q", "quiet", "X", "disable-status", "multi-prog", "overlap", "exact",
              "no-kill", "k", "s", "oversubscribe"}
SRUN_SHORT = {"N": "nodes", "n": "ntasks", "c": "cpus-per-task", "G": "gpus", "t": "time",
              "p": "partition", "w": "nodelist"}
# Commands that run the rest of their argv (profilers, pinning, environments, containers).
WRAPPERS = {"numactl", "nsys", "time", "stdbuf", "nice", "taskset", "uv", "poetry", "conda", "exec",
            "apptainer", "singularity", "nohup", "ncu", "chrt", "ionice", "pixi", "docker", "podman",
            "nvidia-docker", "enroot"}
LAUNCHERS = {"torchrun", "deepspeed", "srun", "mpirun", "mpiexec", "accelerate", "accelerate-launch"}
# Process launchers netlint does not read (LSF jsrun/lrun/blaunch, Cray aprun, TACC ibrun, Flux, PBS pbsdsh):
# the python they start runs as many times as they say
OTHER_LAUNCHERS = {"jsrun", "lrun", "blaunch", "aprun", "ibrun", "flux", "pbsdsh", "prun", "poe", "charmrun"}


@dataclass
class Launch:
    command: Command
    launcher: str                                  # torchrun | deepspeed | python | srun-python
    opts: dict[str, Scalar] = field(default_factory=dict)
    script: Scalar | None = None
    script_args: list[Scalar] = field(default_factory=list)
    wrappers: list[tuple[str, dict[str, Scalar]]] = field(default_factory=list)
    # unknown words among the launcher's options (`torchrun $DISTRIBUTED_ARGS pretrain_gpt.py`): they
    # may set any option, --nnodes and --nproc_per_node among them
    opaque: list[Scalar] = field(default_factory=list)
    # options the deepspeed launcher's parser does not define (torchrun's --nproc_per_node), as written
    undefined: list[Scalar] = field(default_factory=list)


def _name(w: Scalar) -> str | None:
    v = w.value
    if isinstance(v, str):
        return posixpath.basename(v)
    # `${ENV_DIR}/venv/bin/python`, `${X}/bin/torchrun`: the directory is unknown, the program is written
    tail = ""
    for seg in reversed(getattr(w, "parts", ())):
        if seg.unknown is not None:
            break
        tail = seg.text + tail
    return posixpath.basename(tail) if "/" in tail and not tail.endswith("/") else None


def _tail(w: Scalar, start: int) -> Scalar:
    """``w``'s text from ``start`` on (an option's value in ``--opt=value`` or ``-Nvalue``), located in
    the word when it is a shell Word (which can slice itself), else at the whole token."""
    return w.slice(start, None) if hasattr(w, "slice") else Scalar(w.value[start:], w.span)


def _mpirun_opts(argv: list[Scalar], i: int) -> tuple[dict[str, Scalar], int]:
    """An MPI launcher's options from ``argv[i]`` (the launcher) on, with the arity table of
    netlint.nccl.mpirun (``--mca KEY VALUE`` takes two words, a flag none): name → its first value (or
    the flag word), and the index of the program."""
    from netlint.nccl.mpirun import _arity

    out: dict[str, Scalar] = {}
    k = i + 1
    while k < len(argv):
        v = argv[k].value
        if not isinstance(v, str):
            if k + 1 < len(argv) and isinstance(argv[k + 1].value, str) and argv[k + 1].value.startswith("-"):
                k += 1  # `mpirun ${EXTRA} -np 8 …`: options of its own, not the program
                continue
            break
        if not v.startswith("-") or v in ("-", "--"):
            break
        name, eq, val = v.lstrip("-").partition("=")
        n = _arity(name, argv[k + 1] if k + 1 < len(argv) else None) if not eq else 0
        if eq:
            out[name] = _tail(argv[k], len(v) - len(val))
        elif n and k + 1 < len(argv):
            out[name] = argv[k + 1]
        else:
            out[name] = typed(argv[k], True)
        k += 1 + n
    return out, k


def _opts(argv: list[Scalar], i: int, spec: dict[str, bool], opaque: list[Scalar] | None = None,
          undefined: list[Scalar] | None = None) -> tuple[dict[str, Scalar], int]:
    """Parse launcher options from argv[i:]; return (options, index of the first positional). Unknown
    words standing for options (:func:`_opaque_options`) are skipped and added to ``opaque``; options
    ``spec`` does not define, to ``undefined``."""
    out: dict[str, Scalar] = {}
    while i < len(argv):
        w = argv[i]
        v = w.value
        opt = _option_with_unknown_value(w)
        if opt is not None:  # `--rdzv_id=$SLURM_JOB_ID`: an option whose value only the run knows
            out[opt[0].replace("_", "-")] = opt[1]
            i += 1
            continue
        if isinstance(v, Unknown) and _opaque_options(argv, i):
            if opaque is not None:
                opaque.append(w)
            i += 1
            continue
        if not isinstance(v, str) or not v.startswith("-") or v in ("-", "--"):
            if v == "--":
                i += 1
            break
        body = v.lstrip("-")
        name, eq, val = body.partition("=")
        norm = name.replace("_", "-")
        takes = spec.get(norm, spec.get(name))
        if takes is None and v.startswith("--") and spec in (TORCHRUN_OPTS, DEEPSPEED_OPTS):
            # argparse takes a unique prefix of a long option (allow_abbrev is on by default, and
            # torch/distributed/run.py get_args_parser and deepspeed/launcher/runner.py parse_args build
            # plain ArgumentParsers): `--nnode=2` is `--nnodes=2`
            whole = [k for k in spec if len(k) > 1 and k.startswith(norm) and len(norm) >= 2]
            if len(whole) == 1:
                norm, takes = whole[0], spec[whole[0]]
        if spec is ACCELERATE_OPTS:  # no abbreviations (allow_abbrev=False); an option added later takes
            # a value unless the training script follows it
            nxt = argv[i + 1].value if i + 1 < len(argv) else None
            takes = norm not in ACCELERATE_FLAGS and not eq and nxt is not None and not (
                isinstance(nxt, str) and (nxt.endswith(".py") or (nxt.startswith("-") and nxt != "-")))
        if takes is None and undefined is not None:
            undefined.append(w)
        if takes is None:
            # unknown option: assume it takes a value when written --opt value (argparse would error)
            takes = bool(not eq and i + 1 < len(argv) and isinstance(argv[i + 1].value, str)
                         and not argv[i + 1].value.startswith("-") and False)
        if eq:
            out[norm] = _tail(w, len(v) - len(val))
            i += 1
        elif takes and i + 1 < len(argv):
            out[norm] = argv[i + 1]
            i += 2
        else:
            out[norm] = typed(w, True)
            i += 1
    return out, i


def _srun_opts(argv: list[Scalar], i: int) -> tuple[dict[str, Scalar], int]:
    out: dict[str, Scalar] = {}
    while i < len(argv):
        w = argv[i]
        v = w.value
        opt = _option_with_unknown_value(w)
        if opt is not None:
            out[SRUN_SHORT.get(opt[0], opt[0])] = opt[1]
            i += 1
            continue
        if not isinstance(v, str) and _launcher_follows(argv, i + 1):
            i += 1  # `srun ${AUTO_RESUME} -l torchrun …`: an option word only the run knows
            continue
        if not isinstance(v, str) or not v.startswith("-"):
            break
        body = v.lstrip("-")
        name, eq, val = body.partition("=")
        if not v.startswith("--") and len(body) > 1 and not eq and body[0] in SRUN_SHORT:
            out[SRUN_SHORT[body[0]]] = _tail(w, 2)
            i += 1
            continue
        name = SRUN_SHORT.get(name, name) if not v.startswith("--") else name
        if eq:
            out[name] = _tail(w, len(v) - len(val))
            i += 1
        elif body in SRUN_FLAGS or i + 1 >= len(argv):
            out[name] = typed(w, True)
            i += 1
        else:
            out[name] = argv[i + 1]
            i += 2
    return out, i


def _opaque_options(argv: list[Scalar], i: int) -> bool:
    """``argv[i]`` is unknown and stands for launcher options, not for the script: a ``.py`` script
    follows it, with only options (words starting with ``-`` and one value each) in between
    (`torchrun $DISTRIBUTED_ARGS pretrain_gpt.py`, `torchrun $OPTS --nnodes 2 train.py`). An unknown
    followed by options and no script (`torchrun --nproc_per_node 8 $SCRIPT --tp 8`) is the script."""
    k = i + 1
    while k < len(argv):
        v = argv[k].value
        if isinstance(v, str) and (v.endswith(".py") or v in ("-m", "--module")):
            return True
        if not isinstance(v, str) and (_name(argv[k]) or "").endswith(".py"):
            return True  # `${MEGATRON}/pretrain_gpt.py`, `` `pwd`/train.py ``: the script, its folder unknown
        if not (isinstance(v, str) and v.startswith("-")):
            return False
        nxt = argv[k + 1].value if k + 1 < len(argv) else None
        k += 1 if "=" in v or not isinstance(nxt, str) or nxt.startswith("-") or nxt.endswith(".py") else 2
    return False


def _option_with_unknown_value(w: Scalar) -> tuple[str, Scalar] | None:
    """``--name=$X`` with ``$X`` unknown: (name, the value part), else None."""
    v = w.value
    prefix = getattr(v, "prefix", None)
    if isinstance(v, str) or not prefix or not prefix.startswith("-") or "=" not in prefix:
        return None
    name = prefix.split("=", 1)[0].lstrip("-")
    return (name, _tail(w, len(prefix))) if name else None


def past_wrappers(argv: list[Scalar]) -> int:
    """The index of the first word after leading wrapper commands and their options (``time``,
    ``nohup``, ``numactl --cpunodebind=0``)."""
    i = 0
    while i < len(argv) and _name(argv[i]) in WRAPPERS:
        i += 1
        while i < len(argv) and isinstance(argv[i].value, str) and argv[i].value.startswith("-"):
            i += 1
    return i


def _launcher_follows(argv: list[Scalar], i: int) -> bool:
    return any(_name(w) in LAUNCHERS or (_name(w) or "").startswith(PYTHONS) for w in argv[i:])


def _environment_prefix(w: Scalar) -> bool:
    """An unknown word the environment supplies (``${NSYSCMD}``, not set in the script), as opposed to a
    command the script itself chooses between branches netlint cannot decide."""
    v = w.value
    return isinstance(v, Unknown) and "environment" in str(getattr(v, "reason", ""))


def find_launch(cmd: Command) -> Launch | None:
    """The launch described by ``cmd`` (through srun/mpirun wrappers), or None."""
    argv = list(cmd.argv)
    wrappers: list[tuple[str, dict[str, Scalar]]] = []
    parent = cmd.parent
    while parent is not None:  # a `srun … bash -c "torchrun …"` parent wraps this command
        at = past_wrappers(parent.argv)  # `time srun …`, `nohup srun …`
        if at < len(parent.argv) and _name(parent.argv[at]) == "srun":
            o, _ = _srun_opts(parent.argv, at + 1)
            wrappers.append(("srun", o))
        parent = parent.parent
    i = 0
    for _ in range(6):
        if i >= len(argv):
            return None
        name = _name(argv[i])
        if name == "srun":
            o, i = _srun_opts(argv, i + 1)
            wrappers.append(("srun", o))
            continue
        if name in ("mpirun", "mpiexec"):
            o, i = _mpirun_opts(argv, i)
            wrappers.append(("mpirun", o))
            continue
        prefix = name is None and i == 0 and _environment_prefix(argv[i])
        if prefix:
            # kept: a bare python after it may be started by it (`${MPICMD} python …`), which then
            # decides the world size (netlint.jobs.shape.fill_shape)
            wrappers.append(("unknown-prefix", {"prefix": argv[i]}))
        if name in WRAPPERS or prefix:
            # an optional prefix the environment supplies (MLPerf's `${NSYSCMD} torchrun …`: empty unless
            # profiling) is a wrapper too: the launch is the launcher word after it
            # `nsys profile -o x …`, `numactl --cpunodebind=0 …`, `uv run …`: the launch is the first
            # launcher word after the wrapper's own options
            nxt = next((k for k in range(i + 1, len(argv)) if _name(argv[k]) in LAUNCHERS
                        or (_name(argv[k]) or "").startswith(PYTHONS)), None)
            if nxt is None:
                return None
            other = next((w for w in argv[i + 1:nxt] if _name(w) in OTHER_LAUNCHERS), None)
            if other is not None:  # `time jsrun … python …`: a launcher netlint does not read decides the world
                wrappers.append(("other-launcher", {"prefix": other}))
            i = nxt
            continue
        if name in OTHER_LAUNCHERS:  # `jsrun --nrs 48 … python pretrain_gpt.py`
            nxt = next((k for k in range(i + 1, len(argv)) if (_name(argv[k]) or "").startswith(PYTHONS)
                        or _name(argv[k]) in LAUNCHERS or (_name(argv[k]) or "").endswith(".py")), None)
            if nxt is None:
                return None
            wrappers.append(("other-launcher", {"prefix": argv[i]}))
            i = nxt
            continue
        break
    if i >= len(argv):
        return None
    name = _name(argv[i])
    if name is None:
        return None
    opaque: list[Scalar] = []
    if name == "torchrun":
        opts, j = _opts(argv, i + 1, TORCHRUN_OPTS, opaque)
        return _with_script(Launch(cmd, "torchrun", opts, wrappers=wrappers, opaque=opaque), argv, j)
    if name == "deepspeed":
        undefined: list[Scalar] = []
        opts, j = _opts(argv, i + 1, DEEPSPEED_OPTS, opaque, undefined)
        return _with_script(Launch(cmd, "deepspeed", opts, wrappers=wrappers, opaque=opaque, undefined=undefined),
                            argv, j)
    if name == "accelerate-launch" or (name == "accelerate" and i + 1 < len(argv) and argv[i + 1].value == "launch"):
        opts, j = _opts(argv, i + (1 if name == "accelerate-launch" else 2), ACCELERATE_OPTS, opaque)
        return _with_script(Launch(cmd, "accelerate", opts, wrappers=wrappers, opaque=opaque), argv, j)
    if name.endswith(".py"):  # `./pretrain_gpt.py …`, `$NEOX_DIR/deepy.py …` run through their shebang
        kind = "srun-python" if any(w == "srun" for w, _ in wrappers) else "python"
        return _with_script(Launch(cmd, kind, {}, wrappers=wrappers), argv, i)
    if name.startswith(PYTHONS):
        j = i + 1
        while j < len(argv) and isinstance(argv[j].value, str) and argv[j].value.startswith("-") \
                and argv[j].value != "-m":
            j += 2 if argv[j].value in ("-X", "-W") else 1
        if j < len(argv) and argv[j].value == "-m":
            if j + 1 < len(argv) and argv[j + 1].value == ACCELERATE_MODULE:
                opts, k = _opts(argv, j + 2, ACCELERATE_OPTS, opaque)
                return _with_script(Launch(cmd, "accelerate", opts, wrappers=wrappers, opaque=opaque), argv, k)
            if j + 1 < len(argv) and argv[j + 1].value in TORCH_MODULES:
                opts, k = _opts(argv, j + 2, TORCHRUN_OPTS, opaque)
                return _with_script(Launch(cmd, "torchrun", opts, wrappers=wrappers, opaque=opaque), argv, k)
            if j + 1 < len(argv) and argv[j + 1].value in ENTRY_MODULES and any(w == "srun" for w, _ in wrappers):
                # `srun python -m torchtitan.train --job.config_file X`: one process per Slurm task
                return _with_script(Launch(cmd, "srun-python", {}, wrappers=wrappers), argv, j + 1)
            return None
        kind = "srun-python" if any(w == "srun" for w, _ in wrappers) else "python"
        return _with_script(Launch(cmd, kind, {}, wrappers=wrappers), argv, j)
    return None


def _with_script(launch: Launch, argv: list[Scalar], j: int) -> Launch | None:
    if j >= len(argv):
        return None
    launch.script = argv[j]
    launch.script_args = list(argv[j + 1:])
    return launch


CORE_FLAGS = ("--tensor-model-parallel-size", "--pipeline-model-parallel-size", "--num-layers",
              "--micro-batch-size", "--global-batch-size", "--hidden-size", "--deepspeed_config",
              "--deepspeed-config", "--deepspeed", "--context-parallel-size", "--expert-model-parallel-size")


def is_training(launch: Launch, args: list[Arg]) -> bool:
    names = {a.name for a in args}
    return any(f in names for f in CORE_FLAGS)
