"""Which file names a loader reads when its suffixes and exact names do not say it (``Loader.wants_by``).

Plain string tests with no imports: the static registry (:mod:`netlint.registry`) decides with them
which loader modules a file needs before importing any, and each loader's ``wants`` is the same
function, so the two cannot disagree.
"""

from __future__ import annotations

# `.deepspeed_env`: KEY=VALUE lines the DeepSpeed launcher exports to every node of a multi-node run
# (deepspeedai/DeepSpeed@edaa7221 deepspeed/launcher/runner.py L39-40, L616-623)
ENV_NAMES = (".env", "environment", ".deepspeed_env")
SHELL_SUFFIXES = (".sh", ".bash", ".ksh", ".zsh", ".sbatch", ".slurm", ".sub", ".pbs", ".lsf")
PIN_SCRIPTS = (".sh", ".bash", ".sbatch", ".slurm", ".yaml", ".yml")
# Saved command output: `mlxconfig -d mlx5_0 q > cx7-mlxconfig.txt`, `mlnx_qos -i eth2 > qos.log`,
# `grep -r . /sys/class/net/*/ecn > ecn.out`. Files without a suffix only when the name says so.
DUMP_SUFFIXES = (".txt", ".log", ".out", ".dump", ".query")
_DUMP_HINTS = ("mlxconfig", "mstconfig", "mlnx_qos", "mlnx-qos", "sysfs", "ecn", "dcqcn", "cc_params", "roce")


def is_env_name(name: str) -> bool:
    low = name.lower()
    return (low in ENV_NAMES or low.endswith(".env") or low.startswith(".env.")
            or (low.startswith("nccl") and low.endswith((".env", ".environment"))))


def is_dockerfile(name: str) -> bool:
    low = name.lower()
    return low in ("dockerfile", "containerfile") or low.endswith((".dockerfile", ".containerfile")) \
        or low.startswith(("dockerfile.", "containerfile."))


def is_requirements(name: str) -> bool:
    low = name.lower()
    return low.endswith((".txt", ".in")) and low.startswith(("requirements", "constraints"))


def wants_dump(name: str, suffix: str) -> bool:
    if suffix in DUMP_SUFFIXES:
        return True
    return suffix == "" and any(h in name.lower() for h in _DUMP_HINTS)


# -- the predicates ``Loader.wants_by`` names: (file name, lower-case suffix with dot) -> bool --------

def dotenv(name: str, suffix: str) -> bool:
    return is_env_name(name)


def shell(name: str, suffix: str) -> bool:
    if suffix == "":
        return "." not in name.lstrip(".") or name == ".envrc"
    return suffix in SHELL_SUFFIXES or suffix == ".conf"


def dockerfile(name: str, suffix: str) -> bool:
    return is_dockerfile(name)


def nic_dump(name: str, suffix: str) -> bool:
    return wants_dump(name, suffix)


def version_pins(name: str, suffix: str) -> bool:
    return is_dockerfile(name) or is_requirements(name) or suffix in PIN_SCRIPTS
