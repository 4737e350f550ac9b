"""Cumulus traffic.conf / qos_features.conf: switchd configures only the groups a list names, and
Cumulus Linux 5's default egress schedule (bw_percent, 0 = strict) is read."""

from __future__ import annotations

from conftest import at, lint_repo

NCLU = """\
pfc.port_group_list = [ROCE_PFC]
pfc.pfc_port_group.cos_list = [3]
pfc.pfc_port_group.port_set = swp1
ecn_red.port_group_list = [ROCE_ECN]
ecn_red.ROCE_ECN.cos_list = [3]
ecn_red.ROCE_ECN.port_set = swp1
ecn_red.ROCE_ECN.ecn_enable = true
"""


def _codes(report, *codes):
    return sorted((f.code, at(f)) for f in report.findings if f.code in codes)


def test_listed_group_without_keys_and_keys_of_an_unlisted_group(tmp_path):
    # the NCLU example of the Cumulus RoCE page: the list names ROCE_PFC, the keys say pfc_port_group
    report = lint_repo(tmp_path, {"traffic.conf": NCLU})
    assert _codes(report, "NL011", "NL004") == [("NL004", (2, 1)), ("NL011", (1, 23))]
    (sw,) = report.workspace.switches
    assert all(p.pfc_enable is None for p in sw.ports.values())  # nothing configures PFC


def test_matching_groups_are_silent(tmp_path):
    text = NCLU.replace("pfc.pfc_port_group.", "pfc.ROCE_PFC.")
    report = lint_repo(tmp_path, {"traffic.conf": text})
    assert _codes(report, "NL011", "NL004", "NL012") == []
    assert report.workspace.switches[0].ports["swp1"].pfc_set() == {3}


def test_keys_without_any_list_are_said_not_read(tmp_path):
    report = lint_repo(tmp_path, {"traffic.conf": "pfc.ROCE_PFC.cos_list = [3]\npfc.ROCE_PFC.port_set = swp1\n"})
    assert _codes(report, "NL011", "NL004", "NL012") == [("NL012", (1, 25))]


def test_cumulus_5_default_egress_schedule(tmp_path):
    text = ("traffic.packet_priority_source_set = [dscp]\ntraffic.cos_3.priority_source.dscp = [26]\n"
            "pfc.port_group_list = [roce]\npfc.roce.cos_list = [3]\npfc.roce.port_set = swp1\n"
            "default_egress_sched.egr_queue_0.bw_percent = 60\ndefault_egress_sched.egr_queue_3.bw_percent = 40\n"
            "default_egress_sched.egr_queue_6.bw_percent = 0\n")
    report = lint_repo(tmp_path, {"qos_features.conf": text})
    (sw,) = report.workspace.switches
    q = sw.ports["swp1"].queues
    assert sw.schedulers[q[3].scheduler.value].weight.value == 40
    assert sw.schedulers[q[6].scheduler.value].type.value == "strict"
    assert (sw.schedulers[q[0].scheduler.value].type.span.line, sw.schedulers[q[0].scheduler.value].type.span.col) == (6, 47)


def test_lossless_queue_left_out_of_the_ecn_queue_list_is_reported_at_that_list(tmp_path):
    # Cumulus 5 qos_features.conf: queue 3 is lossless, ECN marks only queue 0; the scheduler line that
    # also names queue 3 has nothing to do with ECN
    text = ("pfc.port_group_list = [roce]\npfc.roce.cos_list = [3]\npfc.roce.port_set = swp1\n"
            "default_ecn_red_conf.egress_queue_list = [0]\ndefault_ecn_red_conf.ecn_enable = true\n"
            "default_egress_sched.egr_queue_3.bw_percent = 50\n")
    report = lint_repo(tmp_path, {"qos_features.conf": text})
    assert _codes(report, "QOS104") == [("QOS104", (4, 42))]
    good = lint_repo(tmp_path / "g", {"qos_features.conf": text.replace("egress_queue_list = [0]",
                                                                        "egress_queue_list = [0, 3]")})
    assert _codes(good, "QOS104") == []
    no_ecn = lint_repo(tmp_path / "n", {"qos_features.conf": "\n".join(
        l for l in text.splitlines() if not l.startswith("default_ecn")) + "\n"})
    assert _codes(no_ecn, "QOS104") == [("QOS104", (2, 21))]
