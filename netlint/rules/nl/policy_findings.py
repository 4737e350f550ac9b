"""NL03x: findings about policy files (docs for ``netlint rule NL030`` and friends)."""

from netlint.rules.nl.engine_findings import _EngineRule


class PolicyFileError(_EngineRule):
    """A policy named in the config cannot be used: no such built-in pack or file (reported at the
    entry in the config's `policies` list), an empty file, a policy id in a built-in family (`QOS…`,
    `NCCL…`): pick your own prefix (`ORG001`), or an id already used by another policy (the later one
    does not run: findings, baselines and suppressions are keyed by the id). Schema violations of a
    policy file are reported as NL004 (unknown key) and NL005 (bad value), quoting at most a short
    escaped excerpt of the file.

    Policy files are read only below the project root (the folder of netlint.yaml or pyproject.toml)
    and from netlint's built-in packs: a path outside (`/etc/passwd`, `../secret.yaml`), a link whose
    target is outside, or a FIFO or device is NL030 at the entry and is never read — a repository
    under review cannot make netlint read, and print, a file of the machine it runs on.

    The config's `policy-params` are checked too, at the key in the config: a key that is neither an
    entry of `policies` nor the id of a policy they load, a param no policy there declares (with a
    did-you-mean), or a value of another kind than the policy's default (`'9000'` for `9000`); that
    override is not applied.

    Bad: `policies: [/etc/passwd]`. Good: `policies: [rules/org.yaml, nvidia-roce]`."""

    code, name, summary = "NL030", "policy-file", "Policy file or pack cannot be used"


class PolicyExpressionError(_EngineRule):
    """A policy's CEL expression, template (its parameters: a bad `pattern`, an empty `values`) or
    JSONPath does not compile — or calls a function outside
    CEL's standard library. CEL has no loops and no I/O; netlint also rejects any other function call,
    so a policy from any repository cannot read files, reach the network or run forever. The finding
    points at the offending character when the expression is on one line.

    A comparison that can never hold is refused too: a field the workspace view holds as text (an
    NCCL variable's `value`: NCCL reads its environment as strings) compared with a number literal
    (`self.value == 3` is false on every node, `self.value < 3` fails on every node: CEL converts
    nothing), or a template's numeric `values` / `equals` for such a field.

    Bad: `assert: open('/etc/passwd') != ''`, `assert: self.value == 106`.
    Good: `assert: self.mtu >= 9000`, `assert: self.value == '106'` or `int(self.value) == 106`."""

    code, name, summary = "NL031", "policy-expression", "Policy expression does not compile or is not allowed"


class PolicyRuntimeError(_EngineRule):
    """A policy's CEL expression failed while evaluating a selected node, usually on a missing field.
    The policy is not silently passed: guard optional fields with `has(self.field)`.

    Bad: `assert: self.watchdog.enabled` on a port without a watchdog.
    Good: `assert: has(self.watchdog) && self.watchdog != null && self.watchdog.enabled == true`."""

    code, name, summary = "NL032", "policy-runtime-error", "Policy expression failed on a node"


class PolicyUnknownField(_EngineRule):
    """A policy names a field the workspace view does not have — in its `given` JSONPath, in a
    template's `params.field`, as `self.x` / `workspace.x` / `switch.x` in its CEL expression or a
    message placeholder — or names an item variable (`switch`, `nccl_env`, `job`, `nic`) its `given`
    never binds (`switch` when it selects jobs). Such a policy
    would select nothing, or pass on every node behind a `has()` guard or a template's "absent
    passes" rule: a silent pass. The check uses `schemas/workspace.schema.json` (generated from the
    models); free-form values (port-level `maps`, values netlint cannot type) accept any name. The
    policy is not run until the name is fixed.

    The other names a policy writes are checked the same way, at load, with a did-you-mean: a
    variable CEL does not have (`sellf.mtu` would fail on every node, or pass behind `has()`), a
    `params.x` the policy's `params` do not declare, a message `{…}` that is no placeholder netlint
    fills in (`{mtu}` would print as written), a `${netlint.NAME}` that is not one of netlint's
    recommended values, and a `duplicates` code in a built-in family that no rule has.

    Bad: `given: $.switches[*].port.*`, `assert: sellf.mtu >= 9000`.
    Good: `given: $.switches[*].ports.*`, `assert: self.mtu >= 9000` (see docs/policy.md)."""

    code, name, summary = "NL033", "policy-unknown-field", "Policy refers to a field the workspace view does not have"


class PolicyNotBoolean(_EngineRule):
    """A policy's CEL expression gave something other than `true` or `false` on a node — a number, a
    string, a list. netlint does not guess whether that means pass or fail; the finding points at the
    expression and at the node.

    Bad: `assert: self.mtu`. Good: `assert: self.mtu >= 9000`."""

    code, name, summary = "NL034", "policy-not-boolean", "Policy expression did not give true or false"


class PolicyBudget(_EngineRule):
    """A policy spent its cost budget (`limits.policy-budget`, default 10,000,000 units) and stopped:
    before running, when the nodes it selects times the size of its expression is already more; or
    while running, on the node where it ran out (a related location), keeping the findings on the
    nodes before. A unit is about one step of the CEL engine: each node costs the tokens of the
    expression, each iteration of a list macro the tokens of its body (plus, for `map` and `filter`,
    the elements built so far, which the engine copies), each regex compilation 10,000 (once per
    pattern and policy), each `match-across` value 1 + its JSON length / 64. The message says how to
    write the policy cheaper: a macro that walks `workspace` for every node of a per-node `given`
    (`workspace.switches.all(s, s.ports.all(p, p.mtu == self.mtu))` on every port: ports² steps)
    is a comparison across nodes — `template: match-across` does it in one pass; macros nested in
    macros cost size^depth — select the inner level with `given`. A part of an expression that reads
    only `workspace` is evaluated once per policy, not per node, and costs once.

    Bad: `given: $.switches[*].ports.*` with `assert: workspace.switches.all(s, s.ports.all(p, p.mtu ==
    self.mtu))`. Good: `given: $.switches[*].ports.*`, `template: match-across`, `params: {field: mtu}`."""

    code, name, summary = "NL035", "policy-budget", "Policy stopped: its cost budget is spent"
