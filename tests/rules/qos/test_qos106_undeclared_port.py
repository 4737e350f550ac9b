"""QOS106 says nothing about a PORT_QOS_MAP entry whose port is not in the PORT table: NL011 already
reports that reference, and a watchdog warning on a port that does not exist would follow on from it."""

from __future__ import annotations

import json

from conftest import at, lint_repo


def _config(port_table: list[str]) -> str:
    doc = {f"PORT|{p}": {"speed": "100000", "mtu": "9100"} for p in port_table}
    doc.update({
        "PORT_QOS_MAP|Ethernet0": {"pfc_enable": "3,4"},
        "PORT_QOS_MAP|Ethernet8": {"pfc_enable": "3,4"},
        "PFC_WD|Ethernet0": {"action": "drop", "detection_time": "200", "restoration_time": "200"},
    })
    return json.dumps(doc, indent=4) + "\n"


def _found(report, code):
    return [(f.code, at(f)) for f in report.findings if f.code == code]


def test_watchdog_not_judged_on_a_port_missing_from_port_table(tmp_path):
    report = lint_repo(tmp_path, {"config_db.json": _config(["Ethernet0"])})
    # L9: "PORT_QOS_MAP|Ethernet8" (the dangling reference), said once by NL011
    assert _found(report, "NL011") == [("NL011", (9, 5))]
    assert _found(report, "QOS106") == []


def test_watchdog_missing_on_a_declared_port_is_still_reported(tmp_path):
    report = lint_repo(tmp_path, {"config_db.json": _config(["Ethernet0", "Ethernet8"])})
    assert _found(report, "NL011") == []
    (f,) = [f for f in report.findings if f.code == "QOS106"]
    assert at(f) == (14, 23) and "Ethernet8" in f.message and "Ethernet0" not in f.message
