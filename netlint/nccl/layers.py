"""When one variable is set in several layers that reach a launch, which value the ranks see.

Layers, lowest first:

0. **nccl.conf** (a file, or one a script writes by here-document). NCCL reads ``$NCCL_CONF_FILE``
   (before 2.23: ``~/.nccl.conf``) and then ``/etc/nccl.conf`` and applies each line with
   ``setenv(name, value, 0)``: a name already in the process environment is never overwritten, and
   the first file to set a name wins (NVIDIA/nccl@f98355115914644c66c369e0abb6f85456c99c05
   ``src/misc/param.cc`` L25-60; @081eafafc98385c45e38d5f5a35b3175735a5847 L66-81 with
   ``$NCCL_CONF_FILE``; NCCL User Guide, "Environment Variables",
   https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html: "Environment variables can
   also be set statically in /etc/nccl.conf … or in ${NCCL_CONF_FILE}").
0b. **``srun --export=ALL,NAME=value``**: a value the tasks get only when srun's own environment lacks
   the name ("If ALL is specified, then all user environment variables will be loaded and will take
   precedence over any explicitly given environment variables", srun(1) ``--export``;
   :mod:`netlint.nccl.slurm_export`).
1. **the launch's environment**: the script's exports and the env files of :mod:`netlint.nccl.scope`;
   a script run by another (``srun bash run.sh``, :mod:`netlint.nccl.runs`) replaces what it inherits
   with its own exports.
2. **a one-command prefix** ``NCCL_X=v cmd`` / ``env NCCL_X=v cmd``: that command's environment only
   (bash(1) "SIMPLE COMMAND EXPANSION").
3. **the launcher's options** ``mpirun -x NAME=value`` / ``-genv NAME value`` and ``srun --export=NAME=value``
   without ``ALL``: "sets its value to
   ``bar`` in the started processes" (open-mpi/ompi@19fcf6a8a3c733306e3ce5179145e649d8a85414
   ``3rd-party/prrte/src/docs/prrte-rst-content/cli-x.rst`` L15-21; Open MPI mpirun(1) "-x <env>",
   open-mpi/ompi@6925923dbdc8e8abff355501e19c6541683cd3e3 ``docs/man-openmpi/man1/mpirun.1.rst``),
   whatever the launcher's own environment holds. ``-x NAME`` forwards the launcher's value, so it
   adds no layer of its own (:mod:`netlint.nccl.mpirun` leaves it out when the script gives the value).

:func:`overridden` finds the assignments of a lower layer that a higher one replaces in **every**
launch they reach, so rules judge the value the ranks see and not a dead one. Ties inside one layer
(a variable exported twice) are NCCL308's, not this module's. One pass over every launch group.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:
    from netlint.located import Span
    from netlint.models.nccl import NcclEnv, NcclVar
    from netlint.workspace import Workspace

CONF, DEFAULT, ENV, PREFIX, LAUNCHER = range(5)
WHY = {
    CONF: "NCCL reads nccl.conf with setenv(name, value, 0), which never overwrites a variable the "
          "environment already has",
    DEFAULT: "srun --export=ALL loads srun's own environment over the values it lists",
    ENV: "the script this one runs sets it again for everything that script starts",
    PREFIX: "a prefix assignment is in the environment of the command it precedes",
    LAUNCHER: "the launcher's option (mpirun -x / -genv, srun --export without ALL, docker run -e) sets the "
              "variable in the started processes, over the launcher's own environment",
}


def layer(var: "NcclVar") -> int:
    if var.how == "nccl.conf":
        return CONF
    if var.how == "srun-export-all":
        return DEFAULT
    if var.how.startswith(("mpirun", "srun-export", "container-env")):
        return LAUNCHER
    return PREFIX if var.how in ("prefix", "env") else ENV


def conf_order(group: Iterable["NcclEnv"]) -> list["NcclEnv"]:
    """The group's nccl.conf envs, lowest precedence first: NCCL reads ``/etc/nccl.conf`` last, so
    its lines lose to the user's file (``$NCCL_CONF_FILE`` / ``~/.nccl.conf``)."""
    confs = [e for e in group if e.format == "nccl.conf"]
    return sorted(confs, key=lambda e: not _is_etc(e))


def _is_etc(env: "NcclEnv") -> bool:
    scope = env.scope or ""
    return scope.endswith("/etc/nccl.conf")


def defaults(variables: Iterable["NcclVar"]) -> list["NcclVar"]:
    """``srun --export=ALL,NAME=value`` settings: the value holds where the environment lacks NAME."""
    return [v for v in variables if v.scoped and v.exported and layer(v) == DEFAULT]


def scoped_order(variables: Iterable["NcclVar"]) -> list["NcclVar"]:
    """One-command settings, lowest first: prefixes, then launcher options (file order kept)."""
    scoped = [v for v in variables if v.scoped and v.exported]
    return [v for v in scoped if layer(v) == PREFIX] + [v for v in scoped if layer(v) == LAUNCHER]


def _key(var: "NcclVar") -> tuple:
    s = var.name.span
    return (s.file, s.start, s.line, s.col)


def _launch_of(env: "NcclEnv", var: "NcclVar") -> Any:
    """Which launch of ``env`` a one-command setting belongs to (the command line that holds it)."""
    at = var.statement or var.name.span
    for span in env.launch_spans:
        if span.file == at.file and span.start <= at.start < span.end:
            return ("launch", span.file, span.start)
    return ("line", at.file, at.line) if env.launch_spans else "all"


def _judge(group: list["NcclEnv"], lost: dict, kept: set) -> None:
    """Record, for every assignment of ``group``, whether it loses in every launch view of it."""
    base: dict[str, "NcclVar"] = {}
    conf_vars = []
    for env in conf_order(group):
        for name in {v.key for v in env.variables}:
            var = env.get(name)
            if var is not None and name not in base:   # the file NCCL reads first wins
                base[name] = var
        conf_vars += env.variables
    env_vars = []
    env_of: dict[int, "NcclEnv"] = {}
    for env in (e for e in group if e.format != "nccl.conf"):
        for name in {v.key for v in env.variables}:
            var = env.get(name)
            if var is not None:
                base[name] = var
        env_vars += [v for v in env.variables if not v.scoped]
        env_of.update((id(v), env) for v in env.variables)
    anchor = group[-1] if group else None
    views: dict[Any, dict[str, "NcclVar"]] = {}
    if anchor is not None and anchor.format != "nccl.conf":
        for var in scoped_order(anchor.variables):
            if not var.conditional:
                views.setdefault(_launch_of(anchor, var), {})[var.key] = var
    for var in conf_vars + env_vars + ([v for v in anchor.variables if v.scoped] if anchor else []):
        winners = []
        if layer(var) < PREFIX:
            at = var.statement or var.name.span
            if not views or _has_bare_launch(anchor, views, at):
                winners.append(base.get(var.key))
            winners += [view.get(var.key, base.get(var.key)) for where, view in views.items() if _after(where, at)]
        else:
            view = views.get(_launch_of(anchor, var), {})
            winners.append(view.get(var.key))
        if winners and all(_beats(w, var) or _run_later(w, var, env_of) for w in winners):
            lost.setdefault(_key(var), (var, winners[-1]))
        else:
            kept.add(_key(var))


def _run_later(winner: "NcclVar | None", var: "NcclVar", env_of: dict[int, "NcclEnv"]) -> bool:
    """``winner`` is an export of a script that ``var``'s script runs (netlint.nccl.runs): that script's
    own assignment replaces the inherited value for everything it starts."""
    if winner is None or winner is var or winner.conditional or layer(winner) != ENV or layer(var) != ENV:
        return False
    runner, run = env_of.get(id(var)), env_of.get(id(winner))
    return runner is not None and run is not None and run is not runner and run.file in runner.runs


def _after(where: Any, at: "Span") -> bool:
    """The launch of a view runs after the assignment written at ``at`` (or in another file)."""
    return not (isinstance(where, tuple) and where[0] == "launch" and where[1] == at.file and where[2] < at.end)


def _has_bare_launch(anchor: "NcclEnv", views: dict, after: Span | None = None) -> bool:
    """A program of ``anchor`` runs with no one-command setting: it sees the environment as is. With
    ``after`` (where an assignment is written), only programs run after it in that file count: a
    ``python -c`` substitution above an export never sees it."""
    if not anchor.launch_spans:
        return False
    return any(("launch", s.file, s.start) not in views for s in anchor.launch_spans
               if after is None or s.file != after.file or s.start >= after.end)


def _beats(winner: "NcclVar | None", var: "NcclVar") -> bool:
    """``winner`` surely replaces ``var``: a higher layer, not inside an undecided ``if``, and not a
    ``-x NAME`` forwarding a value netlint cannot see (the name may be unset, and then nothing is set)."""
    from netlint.nccl.mpirun import FORWARDS

    return winner is not None and winner is not var and layer(winner) > layer(var) \
        and not winner.conditional and not (winner.how in FORWARDS and winner.known is None)


def overridden(ws: "Workspace") -> dict[tuple, tuple["NcclVar", "NcclVar"]]:
    """Assignments a higher layer replaces in every launch they reach: name-span key → (the
    assignment, the one that wins). Computed once per run."""
    def compute(w: "Workspace"):
        from netlint.nccl import scope

        lost: dict[tuple, tuple] = {}
        kept: set[tuple] = set()
        for _, group in scope.launch_groups(w):
            _judge(group, lost, kept)
        return {k: v for k, v in lost.items() if k not in kept}

    return ws.derived("nccl.overridden", compute)


def is_overridden(ws: "Workspace", var: "NcclVar") -> bool:
    return _key(var) in overridden(ws)
