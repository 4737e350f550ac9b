"""Switch formats of issue 11: SONiC CONFIG_DB in the flat ``"TABLE|key"`` form, several files merged
into one switch (inventory ``config:`` lists, a qos.json + buffers.json folder), NL007 at the inventory
entry of a file no loader reads, and ``netlint check --show-files``. Every fixture is written here."""

from __future__ import annotations

import json

from conftest import at, lint_repo, only, run_lint, write_repo

INVENTORY = """\
cluster: t
nodes: {count: 1, gpus: 8, gpu: H100-SXM}
fabric:
  transport: roce
"""

FLAT = """\
{
    "DEVICE_METADATA|localhost": {"hostname": "leaf07", "hwsku": "Mellanox-SN3800-D112C8"},
    "PORT|Ethernet0": {"speed": "400000", "mtu": "9100"},
    "CABLE_LENGTH|AZURE": {"Ethernet0": "300m"},
    "BUFFER_POOL|ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "30000000"},
    "BUFFER_PROFILE|pg_lossless_400000_300m_profile": {"pool": "ingress_lossless_pool", "size": "19456",
                                                       "xon": "19456", "xoff": "20480", "dynamic_th": "0"},
    "BUFFER_PG|Ethernet0|3": {"profile": "pg_lossless_400000_300m_profile"},
    "PORT_QOS_MAP|Ethernet0": {"pfc_enable": "3", "pfcwd_sw_enable": "3"},
    "PFC_WD|Ethernet0": {"action": "drop", "detection_time": "200", "restoration_time": "200"},
    "PFC_WD|GLOBAL": {"POLL_INTERVAL": "200"}
}
"""


# -- flat CONFIG_DB --------------------------------------------------------------------------------

def test_flat_config_db_finding_sits_at_the_flat_keys_value(tmp_path):
    report = lint_repo(tmp_path, {"sw/config_db.json": FLAT})
    f = only(report, "QOS110")
    text = (tmp_path / "sw" / "config_db.json").read_text(encoding="utf-8")
    assert (f.file, at(f)) == ("sw/config_db.json", (7, 80))
    assert text[f.span.start:f.span.end] == '"20480"'
    assert f.fix.edits[0].expected == '"20480"'
    assert [x.code for x in report.findings] == ["QOS110"]
    sw = report.workspace.switches[0]
    assert (sw.name, sw.format, sw.complete) == ("leaf07", "sonic", True)
    assert [p.value for p in sw.ports["Ethernet0"].pfc_enable] == [3]


def test_flat_and_nested_forms_give_the_same_switch(tmp_path):
    nested = {}
    for key, fields in json.loads(FLAT).items():
        table, entry = key.split("|", 1)
        nested.setdefault(table, {})[entry] = fields
    write_repo(tmp_path, {"a/config_db.json": FLAT, "b/config_db.json": json.dumps(nested, indent=1)})
    by_file = {s.file: s for s in run_lint(tmp_path).workspace.switches}
    a, b = by_file["a/config_db.json"], by_file["b/config_db.json"]

    def facts(sw):
        p = sw.ports["Ethernet0"]
        return (sw.tables, sw.complete, p.speed.value, p.cable_length.value, sorted(p.pfc_set()),
                {g: b.profile.value for g, b in p.pgs.items()}, sorted(sw.buffer_profiles),
                sw.buffer_profiles["pg_lossless_400000_300m_profile"].xoff.value, p.watchdog.detection_ms.value)

    assert facts(a) == facts(b)


def test_flat_dangling_reference_is_at_the_flat_key(tmp_path):
    report = lint_repo(tmp_path, {"config_db.json": """\
        {
            "DEVICE_METADATA|localhost": {"hostname": "s"},
            "PORT|Ethernet0": {"speed": "100000"},
            "SCHEDULER|scheduler.0": {"type": "DWRR", "weight": "14"},
            "QUEUE|Ethernet9|3": {"scheduler": "[SCHEDULER|scheduler.0]"},
            "QUEUE|Ethernet0|3": {"scheduler": "[SCHEDULER|scheduler.1]"}
        }
        """})
    found = sorted((at(f), f.code) for f in report.findings)
    assert found == [((5, 5), "NL011"), ((6, 40), "NL011")]
    text = (tmp_path / "config_db.json").read_text(encoding="utf-8")
    key = next(f for f in report.findings if at(f) == (5, 5))
    assert text[key.span.start:key.span.end] == '"QUEUE|Ethernet9|3"'


def test_flat_redis_forms_list_fields_and_dump_entries(tmp_path):
    """``name@`` list fields and redis-dump entries are read as sonic-utilities' mock Redis loads them."""
    report = lint_repo(tmp_path, {"db.json": """\
        {
            "BUFFER_POOL|ingress_lossless_pool": {"type": "ingress", "mode": "dynamic"},
            "BUFFER_PORT_INGRESS_PROFILE_LIST|Ethernet0": {"profile_list@": "ingress_lossless_profile,nope"},
            "BUFFER_PROFILE|ingress_lossless_profile": {
                "expireat": 1690000000.0, "ttl": -0.001, "type": "hash",
                "value": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "7"}
            }
        }
        """})
    f = only(report, "NL011")
    text = (tmp_path / "db.json").read_text(encoding="utf-8")
    assert at(f) == (3, 69) and "'nope'" in f.message
    assert text[f.span.start:f.span.end] == '"ingress_lossless_profile,nope"'
    sw = report.workspace.switches[0]
    assert sw.buffer_profiles["ingress_lossless_profile"].dynamic_th.value == 7


def test_flat_structural_fix_writes_the_flat_key(tmp_path):
    from netlint.fix import jsonfix

    (tmp_path / "inventory.yaml").write_text(INVENTORY + "  roce: {dscp: 26, priority: 3}\n", encoding="utf-8")
    text = ('{"DSCP_TO_TC_MAP|M": {"3": "3"},\n'
            ' "PORT_QOS_MAP|Ethernet0": {"dscp_to_tc_map": "M", "pfc_enable": "3"}}\n')
    (tmp_path / "sw.json").write_text(text, encoding="utf-8")
    f = only(run_lint(tmp_path / "sw.json"), "QOS101")
    edit = f.fix.edits[0]
    assert edit.doc_path == ("DSCP_TO_TC_MAP|M", "26") and edit.value == "3"
    assert json.loads(jsonfix.apply(text, edit.doc_path, edit.value))["DSCP_TO_TC_MAP|M"] == {"3": "3", "26": "3"}


def test_flat_form_is_recognised_by_content_not_name(tmp_path):
    report = lint_repo(tmp_path, {"dump-2024.json": '{"PORT_QOS_MAP|Ethernet0": {"pfc_enable": "9"}}\n',
                                  "other.json": '{"SFLOW|global": {"admin_state": "up"}}\n'})
    f = only(report, "NL005")
    assert (f.file, at(f)) == ("dump-2024.json", (1, 43))
    assert [s.file for s in report.workspace.switches] == ["dump-2024.json"]


# -- several files, one switch ---------------------------------------------------------------------

QOS = """\
{
    "PORT_QOS_MAP": {
        "Ethernet0": {"pfc_enable": "3"}
    }
}
"""
BUFFERS = """\
{
    "BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "static", "size": "30000000"}},
    "BUFFER_PROFILE": {
        "pg_lossless_100000_5m_profile": {"pool": "ingress_lossless_pool", "size": "1248", "xon": "2288",
                                          "xoff": "165568"}
    },
    "BUFFER_PG": {
        "Ethernet0|3-4": {"profile": "pg_lossless_100000_5m_profile"}
    }
}
"""


def test_inventory_list_merges_files_into_one_switch(tmp_path):
    """PFC in qos.json, lossless headroom on PGs 3-4 in buffers.json: only the merged switch shows that
    PG 4 holds headroom without PFC (QOS101), and the fix edits qos.json's token."""
    report = lint_repo(tmp_path, {
        "inventory.yaml": INVENTORY + "switches:\n  - {name: leaf01, config: [sw/qos.json, sw/buffers.json]}\n",
        "sw/qos.json": QOS, "sw/buffers.json": BUFFERS})
    f = only(report, "QOS101")
    assert (f.file, at(f)) == ("sw/buffers.json", (8, 9)) and "priority 4" in f.message
    assert [(r.span.file, r.span.line, r.span.col) for r in f.related] == [("sw/qos.json", 3, 37)]
    edit = f.fix.edits[0]
    assert (edit.span.file, edit.expected, edit.replacement) == ("sw/qos.json", '"3"', '"3,4"')
    sws = report.workspace.switches
    assert [(s.name, s.file, s.files) for s in sws] == [("leaf01", "sw/qos.json", ("sw/qos.json", "sw/buffers.json"))]


def test_separate_fragments_say_nothing_about_each_other(tmp_path):
    report = lint_repo(tmp_path, {"a/qos.json": QOS, "b/buffers.json": BUFFERS})
    assert not report.findings and len(report.workspace.switches) == 2


def test_a_folder_with_qos_json_and_buffers_json_is_one_switch(tmp_path):
    report = lint_repo(tmp_path, {"leaf09/qos.json": QOS, "leaf09/buffers.json": BUFFERS,
                                  "renders/qos-a.json": QOS, "renders/buffers-b.json": BUFFERS})
    f = only(report, "QOS101")
    assert (f.file, at(f)) == ("leaf09/buffers.json", (8, 9))
    names = sorted((s.name, s.files) for s in report.workspace.switches)
    # renders of two SKUs (a, b) are two switches (same-SKU pairs: tests/test_switch_sku_pairs.py)
    assert names == [("buffers-b", ()), ("leaf09", ("leaf09/buffers.json", "leaf09/qos.json")), ("qos-a", ())]


def test_conflicting_values_later_file_wins_and_the_loser_is_reported(tmp_path):
    buffers = BUFFERS.replace('    "BUFFER_PG"', '    "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4"}},\n    "BUFFER_PG"')
    report = lint_repo(tmp_path, {
        "inventory.yaml": INVENTORY + "switches:\n  - {name: s, config: [qos.json, buffers.json]}\n",
        "qos.json": QOS, "buffers.json": buffers})
    f = only(report, "NL009")
    assert (f.file, at(f), str(f.severity)) == ("qos.json", (3, 37), "warning")
    assert "buffers.json" in f.message and f.related[0].span.file == "buffers.json"
    sw = report.workspace.switches[0]
    assert sorted(sw.ports["Ethernet0"].pfc_set()) == [3, 4]  # buffers.json comes later: its value wins
    assert not [x for x in report.findings if x.code == "QOS101"]


def test_a_reference_the_other_file_resolves_is_no_longer_dangling(tmp_path):
    a = '{"SCHEDULER": {"s0": {"type": "DWRR", "weight": "10"}},\n "QUEUE": {"Ethernet0|3": {"scheduler": "s1"}}}\n'
    b = '{"SCHEDULER": {"s1": {"type": "STRICT"}}}\n'
    alone = lint_repo(tmp_path / "alone", {"a.json": a, "b.json": b})
    assert [(f.file, f.code, at(f)) for f in alone.findings] == [("a.json", "NL011", (2, 41))]
    merged = lint_repo(tmp_path / "merged", {"a.json": a, "b.json": b, "inventory.yaml": INVENTORY +
                                             "switches:\n  - {name: s, config: [a.json, b.json]}\n"})
    assert not merged.findings


def test_only_sonic_files_merge(tmp_path):
    report = lint_repo(tmp_path, {
        "inventory.yaml": INVENTORY + "switches:\n  - {name: s, config: [qos.json, s.yaml]}\n",
        "qos.json": QOS, "s.yaml": "switch: s\npfc:\n  priorities: [3]\n"})
    f = only(report, "NL005")
    assert (f.file, at(f)) == ("inventory.yaml", (6, 34)) and "native" in f.message
    assert len(report.workspace.switches) == 2


def test_old_inventories_stay_valid_and_the_schema_takes_both_forms():
    import jsonschema

    from conftest import ROOT

    schema = json.loads((ROOT / "schemas" / "inventory.schema.json").read_text(encoding="utf-8"))
    base = {"cluster": "c", "nodes": {"count": 1, "gpus": 8, "gpu": "H100-SXM"}, "fabric": {"transport": "roce"}}
    for config in ("sw/config_db.json", ["sw/qos.json", "sw/buffers.json", "sw/pg_profile_lookup.ini"]):
        jsonschema.validate({**base, "switches": [{"name": "s", "config": config}]}, schema)
    for bad in ([], [3], 3):
        try:
            jsonschema.validate({**base, "switches": [{"name": "s", "config": bad}]}, schema)
        except jsonschema.ValidationError:
            continue
        raise AssertionError(f"schema accepted config: {bad!r}")


def test_an_empty_config_list_is_a_located_error(tmp_path):
    report = lint_repo(tmp_path, {"inventory.yaml": INVENTORY + "switches:\n  - {name: s, config: []}\n"})
    f = only(report, "NL005")
    assert (f.file, at(f)) == ("inventory.yaml", (6, 23)) and "one or more paths" in f.message


# -- nothing named is skipped without a word -------------------------------------------------------

def test_nl007_at_the_inventory_entry_of_an_unread_file(tmp_path):
    report = lint_repo(tmp_path, {
        "inventory.yaml": INVENTORY + "switches:\n  - {name: a, config: sw/a.md}\n"
                                      "  - {name: b, config: [sw/b.json, sw/train.env]}\n"
                                      "nic_configs: [nic/cx7.md]\n",
        "sw/a.md": "hostname a\n", "sw/b.json": '{"hello": "world"}\n', "sw/train.env": "NCCL_DEBUG=WARN\n",
        "nic/cx7.md": "# NIC settings\n"})
    got = sorted((f.file, at(f), f.message.split(": ", 1)[1]) for f in report.findings if f.code == "NL007")
    assert [g[:2] for g in got] == [("inventory.yaml", (6, 23)), ("inventory.yaml", (7, 24)),
                                    ("inventory.yaml", (7, 35)), ("inventory.yaml", (8, 15))]
    a, b, env, nic = (g[2] for g in got)
    assert a == "no netlint format reads *.md files; it is not checked"
    assert b.startswith("no format netlint reads as a switch config recognises its content (")
    assert "sonic-config-db-flat" in b and "sonic-pg-profile-lookup" in b and b.endswith("; it is not checked")
    assert env == "it is read as nccl-dotenv, not as a switch config; it is not checked"
    assert nic == "no netlint format reads *.md files; it is not checked"
    assert all(f.file == "inventory.yaml" for f in report.findings if f.code in ("NL006", "NL007"))


def test_no_nl007_for_named_files_that_are_read(tmp_path):
    report = lint_repo(tmp_path, {
        "inventory.yaml": INVENTORY + "switches:\n  - {name: s, config: [qos.json, pg_profile_lookup.ini]}\n",
        "qos.json": QOS, "pg_profile_lookup.ini": "100000 5m 1248 2288 165568 0 2288\n"})
    assert not [f for f in report.findings if f.code == "NL007"]


def test_show_files_lists_every_walked_file(tmp_path, capsys, monkeypatch):
    from netlint.cli import main

    monkeypatch.chdir(tmp_path)  # paths are named from the current directory (netlint.display)
    write_repo(tmp_path, {
        "inventory.yaml": INVENTORY + "switches:\n  - {name: leaf01, config: [sw/qos.json, sw/buffers.json]}\n",
        "sw/qos.json": QOS, "sw/buffers.json": BUFFERS, "flat/db.json": FLAT, "sw/README.md": "# switches\n",
        "sw/notes.json": '{"owner": "net"}\n', "sw/empty.env": "",
        "sw/pg_profile_lookup.ini": "100000 5m 1248 2288 165568 0 2288\n"})
    capsys.readouterr()
    assert main(["check", "--show-files", str(tmp_path)]) == 0  # findings exist, but nothing is reported
    out = capsys.readouterr().out.splitlines()
    notes = next(line for line in out if line.startswith("sw/notes.json: "))
    assert notes.startswith("sw/notes.json: skipped: content not recognised by ") and "sonic-config-db-flat" in notes
    assert [line for line in out if line != notes] == [
        "flat/db.json: sonic-config-db-flat",
        "inventory.yaml: inventory",
        "sw/README.md: skipped: no netlint format reads *.md files",
        "sw/buffers.json: sonic-config-db (merged into switch 'leaf01' with sw/qos.json)",
        "sw/empty.env: skipped: empty file",
        "sw/pg_profile_lookup.ini: sonic-pg-profile-lookup (lossless profiles of switch 'leaf01')",
        "sw/qos.json: sonic-config-db (merged into switch 'leaf01' with sw/buffers.json)",
    ]
    # round 21: with --format json the same rows are JSON, not text
    import json

    assert main(["check", "--show-files", "--format", "json", str(tmp_path)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {"file": "sw/empty.env", "skipped": "empty file"} in rows
    assert {"file": "inventory.yaml", "read_as": "inventory"} in rows and len(rows) == len(out)


def test_every_check_option_is_documented():
    """README's option list, docs/integrations.md (CI and hooks) or docs/fixes.md name every option."""
    import argparse

    from conftest import ROOT
    from netlint.commands import check

    sub = argparse.ArgumentParser().add_subparsers()
    check.add_parser(sub)
    options = [o for a in sub.choices["check"]._actions for o in a.option_strings
               if o.startswith("--") and o != "--help"]
    docs = "".join((ROOT / p).read_text(encoding="utf-8") for p in ("README.md", "docs/integrations.md",
                                                                    "docs/fixes.md"))
    assert "--show-files" in options
    assert [o for o in options if f"`{o}" not in docs] == []


def test_merged_broadcom_style_renders_are_silent(tmp_path):
    """A Broadcom SKU keeps egress_lossy_profile in its one egress pool, egress_lossless_pool (as the
    corpus render buffer-ft2-p64.json does): queues 0-2 are not lossless queues missing PFC."""
    buffers = """\
        {
            "BUFFER_POOL": {"egress_lossless_pool": {"type": "egress", "mode": "dynamic", "size": "32000000"}},
            "BUFFER_PROFILE": {
                "egress_lossy_profile": {"pool": "egress_lossless_pool", "size": "1778", "dynamic_th": "0"},
                "egress_lossless_profile": {"pool": "egress_lossless_pool", "size": "0", "dynamic_th": "7"}
            },
            "BUFFER_QUEUE": {"Ethernet0|0-2": {"profile": "egress_lossy_profile"},
                             "Ethernet0|3-4": {"profile": "egress_lossless_profile"}}
        }
        """
    report = lint_repo(tmp_path, {"sku/qos.json": QOS.replace('"3"', '"3,4"'), "sku/buffers.json": buffers})
    assert [s.files for s in report.workspace.switches] == [("sku/buffers.json", "sku/qos.json")]
    assert not report.findings, [(f.code, f.message) for f in report.findings]
    lossless_only = buffers.replace('"Ethernet0|3-4": {"profile": "egress_lossless_profile"}',
                                    '"Ethernet0|5": {"profile": "egress_lossless_profile"}')
    report = lint_repo(tmp_path / "b", {"sku/qos.json": QOS.replace('"3"', '"3,4"'), "sku/buffers.json": lossless_only})
    f = only(report, "QOS101")  # the lossless profile on queue 5, which no PFC priority maps to
    text = (tmp_path / "b" / "sku" / "buffers.json").read_text(encoding="utf-8")
    assert (f.file, at(f)) == ("sku/buffers.json", (8, 22)) and "queue 5" in f.message
    assert text[f.span.start:f.span.end] == '"Ethernet0|5"'
