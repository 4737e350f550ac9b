"""The two real NIC Configuration Operator files of ../shared/corpus/switch/nvidia-nic-configuration-operator:
what netlint reports on them alone and with an inventory stating NVIDIA's intent (RoCE DSCP 26 /
priority 3, CNP DSCP 48 / priority 6). Why each finding (and each silence) is true:
tests/corpus_findings_switch.md, "NIC files"."""

from __future__ import annotations

import shutil

from conftest import run_lint

NICOP = ("corpus", "switch", "nvidia-nic-configuration-operator")
CX6 = "example-nicconfigurationtemplate-connectx6dx.yaml"
SPX = "spectrum-x-RA2.1.yaml"
NVIDIA_INTENT = """\
cluster: spectrum-x-pod
nodes: {name: gpu, count: 16, gpus: 8, gpu: B200, nics: [{hca: mlx5_0, netdev: eth0, speed: 400G}]}
fabric:
  transport: roce
  roce: {dscp: 26, priority: 3, cnp_dscp: 48, cnp_priority: 6}
nic_configs: [%s]
"""


def _found(report):
    return sorted((f.file, f.span.line, f.span.col, f.code) for f in report.findings)


def test_alone_both_files_load_and_nothing_is_reported(shared):
    report = run_lint(shared.joinpath(*NICOP))
    assert sorted(n.format for n in report.workspace.nics) == ["nicop-template", "spectrum-x-profile"]
    assert _found(report) == []


def test_with_nvidia_intent_only_the_operators_cnp_dscp_4(shared, tmp_path):
    for name in (CX6, SPX):
        shutil.copy(shared.joinpath(*NICOP, name), tmp_path / name)
    (tmp_path / "inventory.yaml").write_text(NVIDIA_INTENT % f"{CX6}, {SPX}")
    report = run_lint(tmp_path)
    assert _found(report) == [(CX6, 47, 16, "NIC205")]
    (f,) = report.findings
    # roceOptimized.enabled writes CNP_DSCP_Pn=4 to firmware (configvalidation.go L176 at 8bfbeb34)
    assert f.message.startswith("connectx6dx-config sends CNPs with DSCP 4 (firmware, implied by roceOptimized")
    assert [(r.span.file, r.span.line, r.span.col) for r in f.related] == [("inventory.yaml", 5, 43)]
    # the Spectrum-X profile turns DCQCN off for Spectrum-X CC on purpose: no NIC204 / NIC207
    spx = next(n for n in report.workspace.nics if n.format == "spectrum-x-profile")
    assert spx.uses_dcqcn() is False and spx.cnp_dscp.value.value == 48


def test_spectrum_x_profile_alone_with_intent_is_clean(shared, tmp_path):
    shutil.copy(shared.joinpath(*NICOP, SPX), tmp_path / SPX)
    (tmp_path / "inventory.yaml").write_text(NVIDIA_INTENT % SPX)
    assert _found(run_lint(tmp_path)) == []
