"""The registries of the other collective stacks (netlint/data/env-*.tsv): headers, rows, did-you-mean."""

from __future__ import annotations

import re

import pytest

from netlint.nccl import stacks
from netlint.nearest import distance

KEYS = stacks.KEYS
STATUSES = {"active", "deprecated", "alias", "removed", "removed-error"}


@pytest.mark.parametrize("key", KEYS)
def test_header_names_its_source_at_a_commit_and_the_version(key):
    stack = stacks.stacks()[key]
    assert stack.header["registry"] == key
    # every source is a repository at a full commit
    assert re.search(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", stack.source), stack.source
    assert re.search(r"\d+\.\d+|\d{4}-\d{2}-\d{2}", stack.version), stack.version
    assert stack.reader and stack.title


@pytest.mark.parametrize("key", KEYS)
def test_rows_are_typed_and_cite_evidence(key):
    stack = stacks.stacks()[key]
    # the SHARP plugin has three names of its own, libibverbs nine
    assert len(stack.vars) >= {"sharp": 3, "rdma": 9}.get(key, 20)
    for name, var in stack.vars.items():
        assert re.fullmatch(r"[A-Z][A-Z0-9_]+", name), name
        assert var.status in STATUSES, (name, var.status)
        assert var.evidence not in ("", "-"), name
        assert stacks.lookup(name) is not None
        if var.status == "alias":
            assert var.replacement in stack.vars, name


def _one_letter_typo(name: str, candidates: tuple[str, ...]) -> str:
    """A one-letter substitution after the stack's prefix that no other registered name is as close to."""
    for i in range(stacks._prefix_len(name), len(name)):
        if name[i] == "_":
            continue
        typo = name[:i] + ("Q" if name[i] != "Q" else "J") + name[i + 1:]
        if not any(c != name and distance(typo, c, 1) <= 1 for c in candidates):
            return typo
    raise AssertionError(f"no unambiguous one-letter typo of {name}")


@pytest.mark.parametrize("key", KEYS)
def test_every_name_round_trips_through_did_you_mean(key):
    candidates = stacks._candidates()
    for name, var in stacks.stacks()[key].vars.items():
        if var.gone:
            continue   # removed names are never suggested (NCCL327 reports them)
        typo = _one_letter_typo(name, candidates)
        assert stacks.suggest(typo) == name, (typo, name)


def test_prefixes_pick_the_registry_and_leave_other_providers_alone():
    assert stacks.stack_of("FI_EFA_USE_DEVICE_RDMA") == "efa"
    assert stacks.stack_of("OFI_NCCL_PROTOCOL") == "efa"
    assert stacks.stack_of("TORCH_NCCL_BLOCKING_WAIT") == "torch"
    assert stacks.stack_of("NCCL_GPUDIRECTTCPX_TX_BINDINGS") == "tcpx"
    assert stacks.stack_of("FI_TCP_IFACE") is None and stacks.suggest("FI_TCP_IFACE") is None
    assert stacks.stack_of("NCCL_IB_HCA") is None
    assert stacks.lookup("NCCL_RINGS_REMAP").stack == "rccl"


def test_removed_names_carry_their_release():
    efa = stacks.stacks()["efa"].vars
    assert efa["FI_EFA_MTU_SIZE"].status == "removed-error"
    assert efa["OFI_NCCL_RDMA_MIN_POSTED_BOUNCE_BUFFERS"].status == "removed-error"
    assert efa["OFI_NCCL_DOMAIN_PER_THREAD"].removed.startswith("aws-ofi-nccl v1.18")
    assert efa["FI_EFA_USE_DEVICE_RDMA"].added == "libfabric v1.10.0"


def test_a_file_with_only_other_stacks_settings_is_read(tmp_path):
    from conftest import lint_repo

    report = lint_repo(tmp_path, {"run.sh": "#!/bin/bash\nexport HSA_FORCE_FINE_GRAIN_PCIE=0\npython train.py\n",
                                  "efa.env": "FI_PROVIDER=efa\nFI_EFA_USE_DEVICE_RDAM=1\n",
                                  "notes.sh": "#!/bin/bash\necho FI_PROVIDER is documented elsewhere\n"})
    got = sorted((f.code, f.span.file, f.span.line) for f in report.findings if f.code.startswith("NCCL"))
    assert got == [("NCCL325", "efa.env", 2), ("NCCL333", "run.sh", 2)]
    assert not any(e.file == "notes.sh" for e in report.workspace.nccl_envs)


def test_fi_log_level_names_only(tmp_path):
    # libfabric src/log.c fi_convert_log_str (ofiwg/libfabric@af8ddbe9): anything but the four names is warn
    from tests.conftest import at, lint_repo

    report = lint_repo(tmp_path, {"env.sh": "export FI_PROVIDER=efa\nexport FI_LOG_LEVEL=1\nexport FI_LOG_LEVEL=Info\n"})
    assert [at(f) for f in report.findings if f.code == "NCCL326"] == [(2, 21)]
