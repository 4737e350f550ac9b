"""The registry: every TSV row is known, the data copy matches the reference, misspellings are caught."""

from __future__ import annotations

import pytest

from conftest import SHARED, lint_repo
from netlint.nccl.registry import DATA_FILE, REGISTRY_VERSION, SOURCE_VERSION, registry, vtuple


def _tsv_names() -> list[str]:
    lines = DATA_FILE.read_text(encoding="utf-8").splitlines()[1:]
    return [ln.split("\t")[0] for ln in lines if ln.strip()]


def test_package_data_is_the_reference_tsv():
    ref = SHARED / "reference" / "nccl-env.tsv"
    if not ref.is_file():
        pytest.skip("../shared is not beside the checkout")
    assert DATA_FILE.read_bytes() == ref.read_bytes()
    assert (SOURCE_VERSION, REGISTRY_VERSION) == ("2.30.7", "2.32.3")


def test_every_tsv_variable_is_known():
    reg = registry()
    names = _tsv_names()
    assert len(names) == len(reg) == 369
    assert all(n in reg for n in names)
    statuses = {}
    for n in names:
        statuses[reg.get(n).status] = statuses.get(reg.get(n).status, 0) + 1
    assert statuses == {"active": 275, "deprecated": 5, "removed": 24, "external": 65}


def test_no_tsv_variable_is_reported_unknown(tmp_path):
    body = "".join(f"{n}=1\n" for n in _tsv_names())
    report = lint_repo(tmp_path, {"all.env": body})
    assert [f for f in report.findings if f.code == "NCCL301"] == []
    assert not [f for f in report.findings if f.code == "NL000"]


# Ten variables people set all the time, each with a realistic misspelling.
MISSPELLINGS = {
    "NCCL_DEBUG": "NCCL_DEBGU",
    "NCCL_IB_HCA": "NCCL_IB_HAC",
    "NCCL_SOCKET_IFNAME": "NCCL_SOCKET_IFNAM",
    "NCCL_IB_GID_INDEX": "NCCL_IB_GID_IDX",
    "NCCL_NET_GDR_LEVEL": "NCCL_NET_GDR_LEVLE",
    "NCCL_IB_TC": "NCCL_IBTC",
    "NCCL_P2P_DISABLE": "NCCL_P2P_DISABLED",
    "NCCL_IB_TIMEOUT": "NCCL_IB_TIMEOUTS",
    "NCCL_DEBUG_SUBSYS": "NCCL_DEBUG_SUBSYSTEM",
    "NCCL_TOPO_FILE": "NCCL_TOPOFILE",
}


@pytest.mark.parametrize("right,wrong", sorted(MISSPELLINGS.items()))
def test_misspelling_is_caught_with_the_right_suggestion(tmp_path, right, wrong):
    report = lint_repo(tmp_path, {"job.env": f"# tuning\n{wrong}=1\n"})
    hits = [f for f in report.findings if f.code == "NCCL301"]
    assert len(hits) == 1
    f = hits[0]
    assert (f.span.line, f.span.col) == (2, 1)
    assert f"did you mean {right}?" in f.message
    assert f.fix.edits[0].replacement == right and f.fix.safe


def test_other_near_misses():
    reg = registry()
    assert reg.suggest("NCCL_GDR_NET_LEVEL") == "NCCL_NET_GDR_LEVEL"      # words reordered
    assert reg.suggest("CCL_NET_GDR_LEVEL") == "NCCL_NET_GDR_LEVEL"       # NERSC/podman-hpc#136
    assert reg.case_match("nccl_ib_hca") == "NCCL_IB_HCA"
    assert reg.suggest("NCCL_NET_MAX_REQUESTS") is None                  # no close name (PROVENANCE)


def test_external_and_torch_names():
    reg = registry()
    v = reg.get("NCCL_ASYNC_ERROR_HANDLING")
    assert v.external and v.torch_name == "TORCH_NCCL_ASYNC_ERROR_HANDLING"
    assert reg.get("NCCL_GPUDIRECTTCPX_CTRL_DEV").external


@pytest.mark.parametrize("name,version,read", [
    ("NCCL_MIN_CTAS", "2.16.5", False), ("NCCL_MIN_CTAS", "2.17.1", True),
    ("NCCL_MNNVL", "2.20.5", True), ("NCCL_MNNVL", "2.21.5", False),
    ("NCCL_SHM_USE_CUDA_MEMCPY", "2.30.4", True), ("NCCL_SHM_USE_CUDA_MEMCPY", "2.30.7", False),
    ("NCCL_NET_GDR_MLOPART", "2.30.7", True), ("NCCL_NET_GDR_MLOPART", "2.32.3", False),
    ("NCCL_IB_GDR_LEVEL", "2.3.7", True), ("NCCL_IB_GDR_LEVEL", "2.4.2", False),
    ("NCCL_DEBUG", "2.18.3", True),
])
def test_version_dependent_reads(name, version, read):
    assert registry().get(name).read_by(vtuple(version)) is read


def test_registry_is_parsed_once_and_lazily():
    import subprocess
    import sys

    code = ("import sys, netlint.nccl.registry as r; "
            "assert 'netlint.nccl.values' not in sys.modules; "
            "a = r.registry(); b = r.registry(); assert a is b; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


def test_sharp_plugin_and_oc_env_names_are_not_unknown(tmp_path):
    # MLPerf v5.0 configs: NCCL_SHARP_GROUP_SIZE_THRESH is the HPC-X SHARP plugin's (sharp_plugin.c
    # NCCL_PARAM SharpGroupSizeThresh); NCCL_CFG_PATH is read by the repo's NeMo config via ${oc.env:…}
    from conftest import lint_repo

    report = lint_repo(tmp_path, {
        "config.sh": "export NCCL_SHARP_GROUP_SIZE_THRESH=2\nexport NCCL_CFG_PATH=/workspace/nccl.yaml\n"
                     "export NCCL_CFG_PTH=/x\n",
        "conf/custom.yaml": "model:\n  nccl_communicator_config_path: ${oc.env:NCCL_CFG_PATH}\n"})
    assert [(f.span.line, f.message.split(" ")[0]) for f in report.findings if f.code == "NCCL301"] == [
        (3, "NCCL_CFG_PTH")]
