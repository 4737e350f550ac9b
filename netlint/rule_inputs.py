"""What each rule reads: the workspace kinds (the loaders' ``kind``) its family's checks look at.

A run on some files (pre-commit's staged files, ``--changed-since``) reports the findings located in
those files, and a finding located in another file only when its rule reads the kind of a given
file that the finding involves (a related location in it): a switch edit can cause an XC601 in an
env file that names the switch, never a JOB430 in a DeepSpeed config no rule relates to switches.

A rule that reads more or less than its family declares ``reads`` on its class (netlint.rules.base).
"""

from __future__ import annotations

ALL_KINDS = frozenset({"inventory", "switches", "nics", "nccl_envs", "jobs", "runs", "pins"})

FAMILY_INPUTS: dict[str, frozenset[str]] = {
    "QOS": frozenset({"switches", "inventory"}),
    "NIC": frozenset({"nics", "switches", "inventory"}),
    "NCCL": frozenset({"nccl_envs", "jobs", "nics", "inventory"}),
    "JOB": frozenset({"jobs", "nccl_envs", "inventory"}),
    "FAB": frozenset({"jobs", "nccl_envs", "nics", "inventory"}),
    "XC": frozenset({"nccl_envs", "jobs", "switches", "nics", "inventory"}),
    "RUN": frozenset({"runs", "nccl_envs", "jobs", "inventory"}),
    "ADV": frozenset({"pins", "nccl_envs", "jobs", "inventory"}),
    "NL": ALL_KINDS,  # about files themselves (parse, schema, suppressions): whatever file they name
}


def family_inputs(family: str) -> frozenset[str]:
    return FAMILY_INPUTS.get(family, ALL_KINDS)


def inputs_of(code: str) -> frozenset[str]:
    """The kinds rule ``code`` reads; a code no rule registers (a policy rule: CEL sees the whole
    workspace) reads every kind."""
    from netlint.rules.base import load_rules

    rule = load_rules().get(code)
    if rule is not None:
        return rule.inputs()
    return family_inputs(code.rstrip("0123456789"))
