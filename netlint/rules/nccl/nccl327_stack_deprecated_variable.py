from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Severity
from netlint.nccl import scope
from netlint.rules.base import Rule


class StackDeprecatedVariable(Rule):
    """A deprecated or removed variable of EFA/libfabric, aws-ofi-nccl, RCCL or another stack.

    What: the stack's registry marks the name `deprecated` (still read, replaced), `removed` (no longer
    read since the release the registry names: the setting does nothing) or `removed-error` (setting it
    now stops the job: libfabric's EFA provider `abort()`s on `FI_EFA_MTU_SIZE`, `FI_EFA_TX_IOV_LIMIT`,
    `FI_EFA_RX_IOV_LIMIT`; aws-ofi-nccl fails to initialise on `OFI_NCCL_RDMA_MIN_POSTED_BOUNCE_BUFFERS`
    and `OFI_NCCL_RDMA_MAX_POSTED_BOUNCE_BUFFERS`). The message names the release and the replacement.
    PyTorch's legacy `NCCL_*` spellings are NCCL302's.

    Why: a removed knob silently stops doing what the script's comment says, and the
    `removed-error` ones take the whole job down at start-up on the releases that removed them.

    Bad:  `export FI_EFA_MTU_SIZE=8192`, `export OFI_NCCL_RDMA_MIN_POSTED_BOUNCE_BUFFERS=64`
    Good: unset; `OFI_NCCL_RDMA_MIN_POSTED_EAGER_BUFFERS=64`

    Fix: remove the line, or move to the replacement the message names (no automatic fix: the
    replacements are not 1:1).

    Source: ofiwg/libfabric@af8ddbe9 `prov/efa/src/efa_env.c` (`abort_deprecated_env_vars`,
    `info_deprecated_env_vars`) and the release tags v1.0.0..v2.6.0; aws/aws-ofi-nccl@2daf7d30
    `include/nccl_ofi_param.h` (`OFI_NCCL_PARAM_DEPRECATED`, `OFI_NCCL_PARAM_REMOVED`) and
    `include/nccl_ofi_param_impl.h` (`ofi_nccl_param_deprecated_impl`: error on use) and the release
    tags v0.9..v1.21.1; ROCm/rccl tags rocm-3.3.0..rocm-6.2.2; netlint's registries
    `netlint/data/env-*.tsv` (`added`, `removed`, `status`).
    """

    code = "NCCL327"
    name = "stack-deprecated-variable"
    summary = "Deprecated or removed EFA, aws-ofi-nccl, RCCL or other stack variable"
    severity = Severity.WARNING
    tags = ("nccl", "efa", "rccl")

    def check(self, ws) -> Iterator[Finding]:
        from netlint.nccl import stacks

        for env, var in scope.assignments(ws):
            info = stacks.lookup(var.key)
            if info is None or info.status not in ("deprecated", "removed", "removed-error"):
                continue
            if var.key.startswith("NCCL_") and stacks.stack_of(var.key) is None:
                continue   # an NCCL_* name: NCCL's own rules judge it
            rep = info.replacement if info.replacement != "-" else None
            if info.status == "deprecated":
                msg, sev = f"{var.key} is deprecated ({info.meaning})", Severity.INFO
            elif info.status == "removed":
                msg, sev = f"{var.key} is no longer read since {info.removed}: it has no effect", Severity.WARNING
            else:
                msg, sev = f"{var.key} was removed in {info.removed}: {info.meaning}", Severity.ERROR
            if rep:
                msg += f"; use {rep}"
            yield self.finding(msg, var.name.span, key=var.key, severity=sev)
