from __future__ import annotations

import re
from typing import Iterator

from netlint.findings import Finding, Fix, Severity
from netlint.nccl import scope
from netlint.nccl.fixes import rename_edit
from netlint.nccl.registry import BINARY_VERSION, CONSTANTS, SOURCE_VERSION, registry
from netlint.nearest import distance
from netlint.rules.base import Rule

# Misspelt prefixes worth a look (CCL_NET_GDR_LEVEL: NERSC/podman-hpc#136; NCLL_, NCC_ typos).
_NEAR_PREFIXES = ("NCC_", "NCLL_", "NCL_", "CCL_", "NNCL_", "NCCL")


# Where an NCCL install lives, as build systems and site modules name it: PyTorch's
# cmake/Modules/FindNCCL.cmake reads NCCL_INCLUDE_DIR, NCCL_LIB_DIR, NCCL_VERSION, NCCL_ROOT(_DIR);
# nccl-tests' src/Makefile NCCL_HOME (NVIDIA/nccl-tests@a0b82b22 L18-20); HPC module files export
# NCCL_LIBRARY_DIR and the like. Scripts set and forward them (`mpirun -x NCCL_HOME`); NCCL never reads them.
# Where nccl-tests itself is installed (NCCL_TEST_HOME, NCCL_TESTS_HOME, NCCL_TESTS_DIR) is the same kind of name.
INSTALL_LOCATION = re.compile(r"NCCL_(?:(?:TESTS?_)?(?:HOME|DIR|PATH|BIN|ROOT)|ROOT_DIR|PREFIX|INSTALL_(?:DIR|PATH|PREFIX)|VERSION|"
                              r"INC|INCLUDE|INC_DIR|INCLUDE_DIR|INCLUDE_DIRS|LIB|LIBDIR|LIB_DIR|LIBRARY|LIBRARIES|"
                              r"LIBRARY_DIR|LIBRARY_PATH)\Z")


class UnknownVariable(Rule):
    """An `NCCL_*` name that no NCCL release reads (or a near miss of one).

    What: the variable is not in netlint's NCCL registry (every name NCCL 2.30.7's source and the
    2.32.3 library read, every name older releases read, and the `NCCL_*` names PyTorch, the HPC-X,
    GCP and AWS plugins, NCCL's own plugins and nccl-tests read). When a registered name is close
    (edit distance, letter case, reordered words, or a misspelt `NCCL_` prefix) the message suggests it
    and the fix renames the variable. A few names look like variables but are compile-time constants
    in NCCL's source (`NCCL_NET_MAX_REQUESTS`): the message says so. A name some file of the
    repository expands (`$NCCL_TEST`, `${NCCL_TEST:-all_reduce}` in `run.sub`) is the repo's own
    parameter, not an NCCL setting, and is not reported (`NCCL_X=$NCCL_X`, passing the value on under
    its own name, does not count as a read). Nor are the names builds and site modules use for where
    NCCL is installed (`NCCL_HOME`, `NCCL_INCLUDE_DIR`, `NCCL_LIB_DIR`, `NCCL_ROOT`, `NCCL_VERSION`): no
    one expects NCCL to read them.

    Why: NCCL never reports a misspelt variable; it simply never reads it, so the setting silently
    does nothing (NCCL looks each knob up by name). Environment names are case-sensitive.

    Bad:  `export NCCL_IB_HAC==mlx5_0,mlx5_1`
    Good: `export NCCL_IB_HCA==mlx5_0,mlx5_1`

    A name that is no slip of a registered one is a warning that names the closest variable without
    suggesting it (`NCCL_NET_DISABLE` is not `NCCL_NVB_DISABLE`, an NVLink-bridge knob), and info when
    the launch loads an NCCL build of its own through `LD_LIBRARY_PATH`/`LD_PRELOAD` (a fork may read
    it: `-genv LD_LIBRARY_PATH $HOME/nccl-fork/build/lib -genv NCCL_BLINK 1`), or a plugin through
    `NCCL_TUNER_PLUGIN`/`NCCL_NET_PLUGIN`/`NCCL_PROFILER_PLUGIN`/`NCCL_ENV_PLUGIN` (the plugin reads names of
    its own: eunomia-bpf/nccl-eBPF's tuner reads `NCCL_POLICY_BPF_PATH`).

    Fix: rename to the suggested name when the name is the suggestion mistyped (case, one character
    added, lost, changed or swapped, or its words shortened or lengthened: `NCCL_IB_GID_IDX`); safe.
    Otherwise no rename: remove the line or look the knob up in the NCCL User Guide.

    Source: netlint's registry `netlint/data/nccl-env.tsv`: every name read in NVIDIA/nccl@5067397c
    (2.30.7) `src/` (`NCCL_PARAM`, `ncclGetEnv`), in the libnccl.so.2 of PyPI
    `nvidia-nccl-cu12==2.32.3`, and in the release tags v1.2.1 … v2.30.7-1; NCCL User Guide,
    Environment Variables; the readers of external names (PyTorch `ProcessGroupNCCL.hpp`,
    Mellanox/nccl-rdma-sharp-plugins, nccl-tests); compile-time constants such as
    `NCCL_NET_MAX_REQUESTS` (`src/include/plugin/nccl_net.h` L37); NERSC/podman-hpc#136
    (`CCL_NET_GDR_LEVEL`); aws-samples/awsome-distributed-training@7217859f p5 sbatch
    (`NCCL_NET_MAX_REQUESTS`).
    """

    code = "NCCL301"
    name = "unknown-variable"
    summary = "NCCL variable that NCCL does not read (misspelt or invented)"
    severity = Severity.ERROR
    tags = ("nccl",)

    def check(self, ws) -> Iterator[Finding]:
        from netlint.nccl.reads import read_names

        from netlint.nccl import stacks

        reg = registry()
        for env, var in scope.assignments(ws):
            name = var.key
            if name in reg or name in read_names(ws):   # the repo's own scripts read it: not dead
                continue
            if stacks.stack_of(name) or stacks.known(name):
                continue   # a plugin's or RCCL's NCCL_* name (NCCL_GPUDIRECTTCPX_*, NCCL_RINGS_REMAP): NCCL325's
            if INSTALL_LOCATION.match(name):
                continue   # where NCCL is installed, for builds and modules: no one expects NCCL to read it
            if name.startswith("NCCL_"):
                if name in CONSTANTS:
                    yield self.finding(
                        f"{name} is not an environment variable ({CONSTANTS[name]}): NCCL never reads it, "
                        f"so this line has no effect", var.name.span, key=name, severity=Severity.WARNING)
                    continue
                hint = reg.case_match(name) or reg.suggest(name)
            elif name.upper().startswith(_NEAR_PREFIXES) or name.startswith("nccl_"):
                hint = reg.case_match(name) or reg.suggest(name)
                if hint is None or not _plain_typo(name, hint):
                    continue  # another library's own name (oneCCL's CCL_*), not a slip of NCCL's
            else:
                continue
            if hint is None or not _plain_typo(name, hint):
                checked = (f"not a variable NCCL reads (checked against NCCL {SOURCE_VERSION} source, the "
                           f"{BINARY_VERSION} library and older releases) nor one PyTorch or a known plugin reads")
                closest = f"; the closest NCCL variable is {hint}, another knob" if hint else ""
                plugin = _plugin(env)
                if plugin is not None:  # a tuner/net/profiler plugin reads its own NCCL_* names (getenv)
                    yield self.finding(f"{name} is {checked}; this launch loads a plugin ({plugin}) that may read "
                                       f"it: unless it does, it has no effect{closest}", var.name.span, key=name,
                                       severity=Severity.INFO)
                    continue
                own = _own_nccl(env)
                if own is not None:  # a build of its own (a fork) may read names NVIDIA's NCCL does not
                    yield self.finding(f"{name} is {checked}; this launch loads an NCCL of its own ({own}): unless "
                                       f"that build reads it, it has no effect{closest}", var.name.span, key=name,
                                       severity=Severity.INFO)
                    continue
                yield self.finding(f"{name} is {checked}: it has no effect{closest}", var.name.span, key=name,
                                   severity=Severity.WARNING)
                continue
            why = "names are case-sensitive" if hint.upper() == name.upper() else "NCCL ignores it"
            fix = None
            clash = [v for v in env.variables if v.key == hint]
            msg = f"{name} is not an NCCL variable ({why}); did you mean {hint}?"
            if clash:
                msg += f" ({hint} is also set, line {clash[0].name.span.line})"
            else:
                fix = Fix(f"rename {name} to {hint}", (rename_edit(var, hint, ws),), safe=True)
            yield self.finding(msg, var.name.span, key=name, fix=fix)


def _own_nccl(env) -> str | None:
    """``LD_LIBRARY_PATH=…/nccl-fork/build/lib`` (or LD_PRELOAD) set where the variable is: the launch
    loads an NCCL build of its own, as written (its text, unknown parts as ``…``)."""
    for v in env.variables:
        if v.key in ("LD_LIBRARY_PATH", "LD_PRELOAD") and v.value is not None:
            text = v.known if v.known is not None else str(getattr(v.value, "text", "") or getattr(v.value, "raw", ""))
            if "nccl" in text.lower():
                return f"{v.key}={text}"
    return None


_PLUGINS = ("NCCL_TUNER_PLUGIN", "NCCL_NET_PLUGIN", "NCCL_PROFILER_PLUGIN", "NCCL_ENV_PLUGIN")
# values that load no plugin: NCCL tries libnccl-tuner-<value>.so, finds none and keeps its own (GCP's
# TCPXO scripts write NCCL_TUNER_PLUGIN=UNUSED; nccl src/plugin/tuner.cc)
_NO_PLUGIN = ("", "none", "unused", "0", "false", "disable", "disabled")


def _plugin(env) -> str | None:
    """A plugin library the launch loads (``NCCL_TUNER_PLUGIN=/opt/policy/libnccl-policy.so``), as written:
    NCCL dlopens it, and what it reads is its own (NCCL User Guide, "NCCL_TUNER_PLUGIN",
    "NCCL_NET_PLUGIN", "NCCL_PROFILER_PLUGIN")."""
    for v in env.variables:
        if v.key in _PLUGINS and v.value is not None and (v.known is None or v.known.strip().lower() not in _NO_PLUGIN):
            text = v.known if v.known is not None else str(getattr(v.value, "raw", "") or getattr(v.value, "text", ""))
            return f"{v.key}={text}"
    return None


def _plain_typo(name: str, hint: str) -> bool:
    """The written name is the suggestion mistyped: by case, by one character added, lost, changed or
    swapped, or word for word shortened or lengthened (`NCCL_IB_GID_IDX`, `NCCL_DEBUG_SUBSYSTEM`).
    `NCCL_NET_DISABLE` -> `NCCL_NVB_DISABLE` is no such typo: a guess at another knob, which changes what
    NCCL does, so its rename is an unsafe fix."""
    a, b = name.upper(), hint.upper()
    if a == b or distance(a, b, 1) <= 1:
        return True
    pa, pb = a.split("_"), b.split("_")
    return len(pa) == len(pb) and all(_within(x, y) or _within(y, x) for x, y in zip(pa, pb))


def _within(short: str, long: str) -> bool:
    """Every letter of ``short`` appears in ``long`` in order, starting with the same letter."""
    if not short or not long or short[0] != long[0]:
        return False
    it = iter(long)
    return all(c in it for c in short)
