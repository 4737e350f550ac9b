"""``qos-<sku>.json`` + ``buffers-<sku>.json`` (or ``buffer-<sku>.json``) in one folder are one switch,
like ``qos.json`` + ``buffers.json`` — only when the SKU parts are the same string and there is exactly
one file of each kind for that SKU."""

from __future__ import annotations

from conftest import at, lint_repo

from test_switch_formats import BUFFERS, QOS


def _switches(report):
    return sorted((s.name, s.files) for s in report.workspace.switches)


def test_same_sku_renders_merge_into_one_switch(tmp_path):
    report = lint_repo(tmp_path, {"out/qos-dell6100.json": QOS, "out/buffers-dell6100.json": BUFFERS,
                                  "out/qos-arista7260-t0.json": QOS, "out/buffer-arista7260-t0.json": BUFFERS})
    assert _switches(report) == [
        ("arista7260-t0", ("out/buffer-arista7260-t0.json", "out/qos-arista7260-t0.json")),
        ("dell6100", ("out/buffers-dell6100.json", "out/qos-dell6100.json"))]
    # PFC 3 in qos, headroom on PGs 3-4 in buffers: only the merged switch sees PG 4 without PFC
    hits = sorted((f.file, at(f)) for f in report.findings if f.code == "QOS101")
    assert hits == [("out/buffer-arista7260-t0.json", (8, 9)), ("out/buffers-dell6100.json", (8, 9))]


def test_sku_parts_must_match_exactly(tmp_path):
    report = lint_repo(tmp_path, {"out/qos-dell6100.json": QOS, "out/buffers-dell6100-t0.json": BUFFERS})
    assert _switches(report) == [("buffers-dell6100-t0", ()), ("qos-dell6100", ())]
    assert not [f for f in report.findings if f.code == "QOS101"]


def test_two_buffer_files_for_one_sku_stay_unpaired(tmp_path):
    report = lint_repo(tmp_path, {"out/qos-x.json": QOS, "out/buffers-x.json": BUFFERS,
                                  "out/buffer-x.json": BUFFERS})
    assert [files for _, files in _switches(report)] == [(), (), ()]


def test_other_folders_do_not_pair(tmp_path):
    report = lint_repo(tmp_path, {"a/qos-x.json": QOS, "b/buffers-x.json": BUFFERS})
    assert [files for _, files in _switches(report)] == [(), ()]
    assert not report.findings
