"""Which NIC files speak of one NIC, and whose statement decides (nic/roce.py): a file's own trust mode
is never overruled by a peer's, and without an inventory files of different folders are different hosts.
Round 9: ImperialCollegeLondon/rcs-node-config's nodetype/cx3 and nodetype/login scripts both configure
eth0; a reproducer with different values got a false NIC203 judging one file's PFC with the other's trust."""

from __future__ import annotations

from tests.conftest import at, lint_repo

A = ("mlnx_qos -i eth0 --trust dscp\nmlnx_qos -i eth0 --pfc 0,0,0,1,0,0,0,0\n"
     "echo 106 > /sys/class/infiniband/mlx5_0/tc/1/traffic_class\n")
B = A.replace("--trust dscp", "--trust pcp").replace("0,0,0,1,0,0,0,0", "0,0,0,0,1,0,0,0")


def _203(report):
    return [(f.file, *at(f)) for f in report.findings if f.code == "NIC203"]


def test_files_of_different_folders_are_different_hosts(tmp_path):
    report = lint_repo(tmp_path, {"nodetype/cx3/roce.sh": A, "nodetype/login/roce.sh": B})
    assert _203(report) == []


def test_a_files_own_trust_mode_decides_over_a_peers(tmp_path):
    # one folder: peers fill what a file leaves unsaid, but b said --trust pcp (DSCP picks no priority)
    report = lint_repo(tmp_path, {"host/qos.sh": A, "host/qos_b.sh": B})
    assert _203(report) == []


def test_a_file_that_leaves_trust_unsaid_takes_its_peers(tmp_path):
    # bad: b states only PFC on 4; its folder's other file trusts DSCP, so DSCP 26 -> priority 3, lossy
    b = "mlnx_qos -i eth0 --pfc 0,0,0,0,1,0,0,0\necho 106 > /sys/class/infiniband/mlx5_0/tc/1/traffic_class\n"
    report = lint_repo(tmp_path, {"host/qos.sh": "mlnx_qos -i eth0 --trust dscp\n", "host/pfc.sh": b})
    assert _203(report) == [("host/pfc.sh", 1, 24)]
