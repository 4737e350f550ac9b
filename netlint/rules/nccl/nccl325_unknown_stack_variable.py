from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Fix, Severity
from netlint.nccl import scope
from netlint.nccl.fixes import rename_edit
from netlint.rules.base import Rule


class UnknownStackVariable(Rule):
    """A variable of another collective stack (EFA, PyTorch c10d, RCCL, GPUDirect-TCPX, UCX) that the
    stack does not read: misspelt, invented or of the wrong stack.

    What: names with a stack's prefix — `FI_*`/`OFI_NCCL_*` (libfabric's EFA provider and core,
    aws-ofi-nccl), `TORCH_NCCL_*`/`TORCH_FR_*`/`TORCH_DISTRIBUTED_*` (PyTorch c10d), `RCCL_*`/`HSA_*`/
    `HIP_*` (RCCL, ROCm), `NCCL_GPUDIRECTTCPX_*`/`NCCL_FASTRAK_*` (GCP's TCPX/TCPXO plugins), `UCX_*`,
    `RDMAV_*`/`IBV_*`/`VERBS_LOG_*` (rdma-core's libibverbs, which every RDMA transport loads) —
    are looked up in that stack's registry (`netlint/data/env-<stack>.tsv`). When a name of any
    registry (NCCL's included) is a near miss, the message suggests it and the fix renames the
    variable. Without a near miss the name is reported only where the registry lists the prefix
    completely at its source version (`OFI_NCCL_`, `FI_EFA_`, `NCCL_GPUDIRECTTCPX_`, `RDMAV_`): elsewhere a
    newer release may read it. Names of libfabric's other providers (`FI_TCP_*`, `FI_VERBS_*`, …) and
    names a file of the repo expands (`$FI_PROVIDER`) are left alone.

    Why: every one of these libraries looks its knobs up by exact name and says nothing about one it
    does not know: `FI_EFA_USE_DEVICE_RDAM=1` leaves GPUDirect RDMA at its default, and a misspelt
    `TORCH_NCCL_ASYNC_ERROR_HANDLNG` leaves the watchdog behaviour unchanged.

    Bad:  `export FI_EFA_USE_DEVICE_RDAM=1`
    Good: `export FI_EFA_USE_DEVICE_RDMA=1`

    Fix: rename to the suggested name (safe: the intent is clear).

    Source: the registries' own sources, named in each file's header: aws/aws-ofi-nccl@2daf7d30
    `include/nccl_ofi_param.h`; ofiwg/libfabric@af8ddbe9 `prov/efa/src/efa_env.c`, `src/fabric.c`,
    `src/log.c`, `src/hmem*.c`; pytorch/pytorch@4c2f2809 `torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp`
    and `docs/source/torch_nccl_environment_variables.md`; ROCm/rccl@0cbce2a7 `src/` (`RCCL_PARAM`);
    google/nccl-plugin-gpudirecttcpx@4b8ea7f2 `src/` (`TCPX_PARAM`, `TCPX_GET_ENV`);
    google/nccl-plugin-gpudirect-tcpxo@04815d1b `tcpdirect_plugin/fastrak_offload/const_params.h`;
    openucx/ucx@9466d104 `src/uct/ib/base/ib_iface.c`, `src/ucp/core/ucp_context.c`;
    linux-rdma/rdma-core@691953d8 `libibverbs/init.c`, `libibverbs/dynamic_driver.c`, `libibverbs/memory.c`
    (`RDMAV_FORK_SAFE`: a misspelt `RDMAV_FORM_SAFE` leaves registered memory unprotected across fork()).
    """

    code = "NCCL325"
    name = "unknown-stack-variable"
    summary = "EFA/libfabric, PyTorch c10d, RCCL, TCPX, UCX or libibverbs variable its stack does not read"
    severity = Severity.ERROR
    tags = ("nccl", "efa", "pytorch", "rccl", "tcpx", "ucx")

    def check(self, ws) -> Iterator[Finding]:
        from netlint.nccl import stacks
        from netlint.nccl.registry import registry

        reg = registry()
        read = stacks.read_names(ws)
        for env, var in scope.assignments(ws):
            name = var.key
            key = stacks.stack_of(name)
            if key is None or stacks.known(name) or name in reg or name in read:
                continue
            stack = stacks.stacks()[key]
            hint = stacks.case_match(name) or stacks.suggest(name)
            if hint is None:
                if stack.owns_completely(name):
                    yield self.finding(
                        f"{name} is not read by {stack.reader} (checked against {stack.version}): it has "
                        f"no effect", var.name.span, key=name, severity=Severity.WARNING)
                continue
            why = "names are case-sensitive" if hint.upper() == name.upper() else "it is ignored"
            msg = f"{name} is not read by {stack.reader} ({why}); did you mean {hint}?"
            clash = [v for v in env.variables if v.key == hint]
            fix = None
            if clash:
                msg += f" ({hint} is also set, line {clash[0].name.span.line})"
            else:
                fix = Fix(f"rename {name} to {hint}", (rename_edit(var, hint, ws),), safe=True)
            yield self.finding(msg, var.name.span, key=name, fix=fix)
