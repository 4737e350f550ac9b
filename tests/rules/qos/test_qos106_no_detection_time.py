"""QOS106: a SONiC PFC_WD entry without ``detection_time`` starts no watchdog — orchagent refuses it
(sonic-net/sonic-swss@e6b0c5b ``orchagent/pfcwdorch.cpp`` ``createEntry``: "detection_time missing",
``task_invalid_entry``) — so the lossless port is unprotected although it has an entry."""

from __future__ import annotations

import json

from conftest import at, lint_repo


def _config(**entry) -> str:
    doc = {"PFC_WD|GLOBAL": {"POLL_INTERVAL": "200"},
           "PFC_WD|Ethernet0": {"action": "drop", **entry},
           "PORT_QOS_MAP|Ethernet0": {"pfc_enable": "3,4"}}
    return json.dumps(doc, indent=4) + "\n"


def _qos106(report):
    return [f for f in report.findings if f.code == "QOS106"]


def test_entry_without_detection_time_is_not_a_running_watchdog(tmp_path):
    report = lint_repo(tmp_path, {"config_db.json": _config()})
    (f,) = _qos106(report)
    assert at(f) == (5, 25)  # the PFC_WD|Ethernet0 entry
    assert "not started on 1 lossless port(s) (Ethernet0)" in f.message and "detection_time" in f.message


def test_entry_with_detection_time_is_silent(tmp_path):
    report = lint_repo(tmp_path, {"config_db.json": _config(detection_time="200", restoration_time="200")})
    assert _qos106(report) == []


def test_unreadable_detection_time_is_the_loader_s_finding_only(tmp_path):
    report = lint_repo(tmp_path, {"config_db.json": _config(detection_time="fast", restoration_time="200")})
    assert _qos106(report) == []
    assert [f.code for f in report.findings if f.code == "NL005"] == ["NL005"]
