"""A CONFIG_DB key may name several ports, comma separated (``PORT_QOS_MAP|Ethernet0,Ethernet4``,
``QUEUE|Ethernet0,Ethernet4|3-4``): orchagent splits it (sonic-net/sonic-swss@e6b0c5b
``orchagent/qosorch.cpp`` L1806, L2058), so netlint reads one port per name, in the flat and the
nested form, and findings count and name the ports, not the key."""

from __future__ import annotations

import json

from conftest import at, lint_repo

WD = {"action": "drop", "detection_time": "200", "restoration_time": "200"}


def _codes(report, code):
    return [f for f in report.findings if f.code == code]


def test_watchdog_on_each_listed_port_is_found(tmp_path):
    doc = {"PFC_WD|Ethernet0": WD, "PFC_WD|Ethernet4": WD, "PFC_WD|GLOBAL": {"POLL_INTERVAL": "200"},
           "PORT_QOS_MAP|Ethernet0,Ethernet4": {"pfc_enable": "3,4"}}
    report = lint_repo(tmp_path, {"config_db.json": json.dumps(doc, indent=4) + "\n"})
    assert _codes(report, "QOS106") == []  # was: "watchdog off on 1 port (Ethernet0,Ethernet4)"


def test_watchdog_missing_on_one_listed_port(tmp_path):
    doc = {"PFC_WD|Ethernet0": WD, "PFC_WD|GLOBAL": {"POLL_INTERVAL": "200"},
           "PORT_QOS_MAP|Ethernet0,Ethernet4": {"pfc_enable": "3,4"}}
    report = lint_repo(tmp_path, {"config_db.json": json.dumps(doc, indent=4) + "\n"})
    (f,) = _codes(report, "QOS106")
    assert "Ethernet4" in f.message and "Ethernet0" not in f.message
    assert at(f) == (11, 23)  # the pfc_enable value of the shared entry


def test_ports_of_a_queue_entry_are_counted_once_each(tmp_path):
    text = """{
    "WRED_PROFILE": {"AZURE_LOSSLESS": {"wred_green_enable": "true", "green_min_threshold": "4095",
                                        "green_max_threshold": "32760"}},
    "PORT_QOS_MAP": {"Ethernet0,Ethernet4,Ethernet8": {"pfc_enable": "3,4"}},
    "QUEUE": {"Ethernet0,Ethernet4,Ethernet8|3-4": {"wred_profile": "AZURE_LOSSLESS"}}
}
"""
    report = lint_repo(tmp_path, {"qos.json": text})
    (f,) = _codes(report, "QOS104")
    assert at(f) == (2, 22)
    assert "on 3 port(s) (Ethernet0, Ethernet4, Ethernet8)" in f.message


def test_listed_ports_of_a_complete_config_are_known_ports(tmp_path):
    doc = {"DEVICE_METADATA": {"localhost": {"hostname": "leaf1"}},
           "PORT": {"Ethernet0": {"speed": "100000"}, "Ethernet4": {"speed": "100000"}},
           "BUFFER_PG": {"Ethernet0,Ethernet4|3-4": {"profile": "NULL"}},
           "PORT_QOS_MAP": {"Ethernet0,Ethernet4": {"pfc_enable": "3,4"},
                            "Ethernet0,Ethernet9": {"pfc_enable": "3,4"}}}
    report = lint_repo(tmp_path, {"config_db.json": json.dumps(doc, indent=4) + "\n"})
    (f,) = _codes(report, "NL011")  # only the name that is not a port
    assert "'Ethernet9'" in f.message and at(f) == (24, 9)  # the key naming it
    sw = report.workspace.switches[0]
    assert sorted(sw.ports) == ["Ethernet0", "Ethernet4", "Ethernet9"]
    assert sw.ports["Ethernet4"].pgs.keys() == {3, 4} and sw.ports["Ethernet4"].pfc_set() == {3, 4}


def test_one_fix_edit_per_shared_queue_entry(tmp_path):
    text = """{
    "WRED_PROFILE": {"LOSSLESS": {"wred_green_enable": "true", "ecn": "ecn_all"}},
    "PORT_QOS_MAP": {"Ethernet0,Ethernet4": {"pfc_enable": "3,4"}},
    "QUEUE": {"Ethernet0,Ethernet4|4": {"wred_profile": "LOSSLESS"}, "Ethernet0,Ethernet4|3": {"scheduler": "S"}},
    "SCHEDULER": {"S": {"type": "DWRR", "weight": "50"}}
}
"""
    report = lint_repo(tmp_path, {"qos.json": text})
    (f,) = _codes(report, "QOS104")
    assert at(f) == (4, 70) and "queue 3" in f.message and "2 port(s)" in f.message
    assert len(f.fix.edits) == 1
