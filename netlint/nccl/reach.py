"""Which programs a shell script's NCCL exports reach: none of its own when it only renders files (a
generator of manifests and configs), and not the ranks on other hosts of an Open MPI ``mpirun`` that
does not list them with ``-x``."""

from __future__ import annotations

from typing import Any

# Programs a script runs to render or submit files, none of which starts an NCCL process: a script that
# runs only these exports its NCCL variables for the files it writes (placeholders), not for a launch.
_GENERATOR_TOOLS = {"envsubst", "kubectl", "helm", "kustomize", "yq", "jq", "sed", "awk", "tee", "j2", "gomplate"}
_QUIET = {"cat", "echo", "printf", "mkdir", "cp", "mv", "rm", "ls", "date", "sleep", "touch", "chmod", "head",
          "tail", "basename", "dirname", "realpath", "readlink", "true", "false", "test", "grep", "cut", "tr",
          "sort", "uniq", "wc", "aws", "eksctl", "gcloud", "az", "terraform", "git", "curl", "wget", "hostname",
          "pwd", "seq", "expr", "whoami", "id", "nproc", "find", "scontrol", "squeue", "nvidia-smi", "awk", "sed"}


def generator_only(script: Any, launches: list[str]) -> bool:
    """The script renders files (a here-document written to a file, or a templating/submit tool) and
    runs nothing else that could start NCCL: its NCCL exports reach no NCCL process of its own."""
    names = {n.rsplit("/", 1)[-1] for n in launches}
    if not names or not names <= _GENERATOR_TOOLS | _QUIET:
        return False
    writes = any(hd.target is not None or any(op in (">", ">>") for op, _ in getattr(hd.command, "redirects", ()))
                 for hd in script.heredocs)
    return writes or bool(names & _GENERATOR_TOOLS)


# programs that start no NCCL process (rendering tools and the inert ones)
INERT = _QUIET | _GENERATOR_TOOLS


def not_forwarded(script: Any, file: str, variables: list) -> None:
    """Flag the NCCL exports an Open MPI ``mpirun`` on several hosts does not pass on: Open MPI forwards
    ``OMPI_*`` and the ``-x`` names to the ranks on other nodes, not the whole environment (mpirun(1)
    "Exported Environment Variables"). A line with ``-x`` is Open MPI's (MPICH and Intel MPI forward the
    environment and have no ``-x``); several hosts: ``-H a,b`` or a hostfile."""
    from netlint.models.nccl import NOT_FORWARDED
    from netlint.nccl.mpirun import FORWARDS, X, is_launcher, settings

    for cmd in script.commands:
        if not cmd.argv or not is_launcher(cmd.argv[0]) or cmd.span.file != file or cmd.conditional:
            continue
        given = [s for s in settings(cmd.argv) if s.how in (X,) + FORWARDS]
        words = [w.value for w in cmd.argv if isinstance(w.value, str)]
        hosts = any(w in ("-H", "--host", "-host") and i + 1 < len(words) and "," in words[i + 1]
                    for i, w in enumerate(words)) or any(w.lstrip("-").split("=")[0] in ("hostfile", "machinefile")
                                                         for w in words)
        if not given or not hosts:
            continue
        names = {s.name.value for s in given}
        for var in variables:
            if var.key.startswith("NCCL_") and var.key not in names and var.how == "export" and var.exported \
                    and not var.conditional and var.name.span.file == file and var.name.span.start < cmd.span.start:
                var.flags.append(f"{NOT_FORWARDED}{cmd.span.line}")


def launch_nodes(script: Any, file: str) -> str:
    """How many nodes the commands of ``file`` that start ranks run on: "one" (``torchrun`` without
    ``--nnodes`` or with 1, ``deepspeed --num_nodes 1`` or ``--include`` of one host), "unknown" (a
    ``deepspeed`` without either, which runs on this machine unless ``/job/hostfile`` lists others; an
    option word only the run knows), "many" (``torchrun --nnodes 2``, ``deepspeed --num_nodes 2`` or
    ``--include`` of several hosts), else "" (a launcher or a count netlint does not read)."""
    verdicts = []
    for launch in _launches(script, file):
        if launch.wrappers or launch.launcher not in ("torchrun", "deepspeed"):
            return ""
        o = launch.opts
        if launch.launcher == "torchrun":
            n = o.get("nnodes")
            if n is not None and not (isinstance(n.value, str) and n.value in ("1", "1:1")):
                return "many" if isinstance(n.value, str) and n.value.split(":")[-1].isdigit() else ""
            verdicts.append("unknown" if launch.opaque or (n is None and o.get("rdzv-endpoint") is not None)
                            else "one")
        else:
            n, inc = o.get("num-nodes"), o.get("include") or o.get("i")
            if (n is not None and getattr(n, "value", None) == "1") or (
                    inc is not None and isinstance(inc.value, str) and "@" not in inc.value):
                verdicts.append("one")
            elif n is None and inc is None and o.get("hostfile") is None and o.get("H") is None:
                verdicts.append("unknown")
            else:
                several = (n is not None and str(getattr(n, "value", "")).isdigit()) or (
                    inc is not None and isinstance(inc.value, str) and "@" in inc.value)
                return "many" if several else ""
    if not verdicts:
        return ""
    return "one" if all(v == "one" for v in verdicts) else "unknown"


def one_rank_per_node(script: Any, file: str) -> bool:
    """Every command of ``file`` that starts ranks starts one per node: ``torchrun --nproc_per_node 1``
    (torch/distributed/run.py: that many worker processes on each node), ``deepspeed --num_gpus 1``."""
    seen = False
    for launch in _launches(script, file):
        key = {"torchrun": "nproc-per-node", "deepspeed": "num-gpus"}.get(launch.launcher)
        word = launch.opts.get(key) if key else None
        if word is None or getattr(word, "value", None) != "1":
            return False
        seen = True
    return seen


def _launches(script: Any, file: str):
    """The launches (netlint.jobs.launch) of the top-level commands written in ``file``."""
    from netlint.jobs.launch import find_launch

    for cmd in script.commands:
        if cmd.span.file == file and cmd.parent is None:
            launch = find_launch(cmd)
            if launch is not None:
                yield launch
