from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Severity
from netlint.nccl import scope
from netlint.nccl.fixes import value_fix
from netlint.rules.base import Rule


class StackInvalidValue(Rule):
    """A value an EFA/libfabric, aws-ofi-nccl, PyTorch c10d, TCPX or UCX setting cannot be read as.

    What: the value is parsed the way the stack parses it (`netlint/nccl/stack_values.py`):
    aws-ofi-nccl booleans are `true`/`false` or an integer and numbers must be whole (`8k` fails);
    libfabric booleans are `0/1/true/false/yes/no/on/off` and integers `strtol`; PyTorch booleans are
    `y/yes/1/t/true` or `n/no/0/f/false` and integers `std::stoi`; value sets (`OFI_NCCL_PROTOCOL`,
    `TORCH_DISTRIBUTED_DEBUG`) and the ranges the registries state (`TORCH_NCCL_ASYNC_ERROR_HANDLING`
    0..3, `UCX_IB_TRAFFIC_CLASS` 0..255, the TCPXO switches 0..1).

    Why: the consequences differ by stack and none is benign: a value aws-ofi-nccl cannot read makes
    the plugin fail to initialise, so NCCL runs without EFA; PyTorch raises when the process group is
    created; libfabric warns and keeps its default, so the setting silently does nothing.

    Bad:  `export TORCH_NCCL_BLOCKING_WAIT=enabled`, `export OFI_NCCL_PROTOCOL=rdma_write`
    Good: `export TORCH_NCCL_BLOCKING_WAIT=1`, `export OFI_NCCL_PROTOCOL=RDMA`

    Fix: where the intended value is clear (`on` → `1` for aws-ofi-nccl, the digits libfabric reads) the
    fix writes it (unsafe: the run then behaves differently).

    Source: aws/aws-ofi-nccl@2daf7d30 `include/nccl_ofi_param_impl.h` (`ofi_nccl_param_string_to_value`,
    "set to invalid value" → `-EINVAL` from `ofi_nccl_parameters_init`, `src/nccl_ofi_param.cpp`);
    ofiwg/libfabric@af8ddbe9 `src/var.c` (`fi_parse_bool`, `strtol(str_value, NULL, 0)`);
    pytorch/pytorch `torch/csrc/distributed/c10d/Utils.hpp` (`getCvarBool`, `getCvarInt`: "Invalid
    value for environment variable"); openucx/ucx@9466d104 `src/uct/ib/base/ib_iface.c`;
    google/nccl-plugin-gpudirect-tcpxo@04815d1b `tcpdirect_plugin/fastrak_offload/const_params.h`
    (`NCCL_CONST_PARAM` min/max).
    """

    code = "NCCL326"
    name = "stack-invalid-value"
    summary = "Value an EFA, aws-ofi-nccl, PyTorch c10d, TCPX or UCX setting cannot be read as"
    severity = Severity.ERROR
    tags = ("nccl", "efa", "pytorch", "tcpx", "ucx")

    def check(self, ws) -> Iterator[Finding]:
        from netlint.nccl import stacks
        from netlint.nccl.stack_values import check

        for env, var in scope.assignments(ws):
            if var.known is None or not stacks.stack_of(var.key) and var.key.startswith("NCCL_"):
                continue
            info = stacks.lookup(var.key)
            if info is None or info.stack not in ("efa", "torch", "tcpx", "ucx") or info.status == "alias":
                continue
            bad = check(info, var.known.strip())
            if bad is None:
                continue
            fix = value_fix(var, bad.fix, ws, f"write {var.key}={bad.fix}") if bad.fix else None
            yield self.finding(bad.message, var.span, key=var.key, fix=fix, severity=Severity.parse(bad.severity))
