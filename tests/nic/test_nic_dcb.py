"""iproute2 `dcb` in NIC setup scripts (dcb-pfc(8), dcb-app(8)): PFC and DSCP→priority read like
mlnx_qos's. Round 9: a Broadcom bnxt_re setup script configures PFC and the DSCP app table only with
`dcb`, and a file holding only such commands was skipped as unrecognised."""

from __future__ import annotations

from tests.conftest import at, lint_repo

TC = "echo 106 > /sys/class/infiniband/mlx5_0/tc/1/traffic_class\n"


def _codes(report, *codes):
    return sorted((f.code, *at(f)) for f in report.findings if f.code in codes)


def test_dcb_pfc_and_dscp_prio_are_read(tmp_path):
    # bad: DSCP 26 -> priority 3 by the app table, PFC on 4 only (all:off then 4:on)
    text = "dcb pfc set dev eth0 prio-pfc all:off 4:on\ndcb app add dev eth0 dscp-prio 26:3 CS6:6\n" + TC
    report = lint_repo(tmp_path, {"roce.sh": text})
    assert _codes(report, "NIC203", "NL012") == [("NIC203", 1, 31)]
    (nic,) = [n for n in report.workspace.nics if n.interface is not None]
    assert sorted(nic.pfc.value.value) == [4]
    assert nic.priority_of_dscp(26).value == 3 and nic.priority_of_dscp(48).value == 6  # CS6 = 48


def test_dcb_pfc_on_the_roce_priority_is_clean(tmp_path):
    text = "dcb pfc set dev eth0 prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off\n" \
           "dcb app replace dev eth0 dscp-prio 26:3\n" + TC
    report = lint_repo(tmp_path, {"roce.sh": text})
    assert _codes(report, "NIC203", "NL012") == []


def test_some_priorities_only_is_said_not_guessed_and_a_show_sets_nothing(tmp_path):
    text = "dcb pfc show dev eth0\ndcb pfc set dev eth0 prio-pfc 3:on\n" + TC
    report = lint_repo(tmp_path, {"roce.sh": text})
    assert _codes(report, "NIC203", "NL012") == [("NL012", 2, 31)]
    assert all(n.pfc.value is None for n in report.workspace.nics)
