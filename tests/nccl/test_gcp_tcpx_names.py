"""NCCL306 beside GCP's GPUDirect-TCPX/TCPXO plugin: NCCL_MIN_NCHANNELS is deprecated for NCCL_MIN_CTAS,
but the plugin's guest config checker enforces NCCL_MIN_NCHANNELS=4 by name, so no rename is offered
(allenai/OLMo scripts/beaker/peteish/peteish7-medlr.sh sets both it and NCCL_FASTRAK_*)."""

from __future__ import annotations

from conftest import at, lint_repo


def _306(report):
    return [f for f in report.findings if f.code == "NCCL306"]


def test_no_rename_beside_the_tcpxo_plugin(tmp_path):
    report = lint_repo(tmp_path, {"run.sh": "export NCCL_FASTRAK_NUM_FLOWS=2\nexport NCCL_MIN_NCHANNELS=4\n"})
    (f,) = _306(report)
    assert at(f) == (2, 8) and f.fix is None and "keep it here" in f.message


def test_rename_offered_elsewhere(tmp_path):
    report = lint_repo(tmp_path, {"run.sh": "export NCCL_MIN_NCHANNELS=4\n"})
    (f,) = _306(report)
    assert at(f) == (1, 8) and f.fix is not None and not f.fix.safe
    assert f.fix.edits[0].replacement == "NCCL_MIN_CTAS"
