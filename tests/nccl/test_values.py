"""Value parsing the way NCCL does it (strtoll base 0, level names, ALGO/PROTO grammar, lists)."""

from __future__ import annotations

import pytest

from netlint.nccl import lists
from netlint.nccl.registry import vtuple
from netlint.nccl.values import check, strtoll


@pytest.mark.parametrize("text,value,end", [
    ("106", 106, 3), ("0106", 70, 4), ("0x6a", 106, 4), ("  -2", -2, 4), ("8M", 8, 1),
    ("true", 0, 0), ("08", 0, 1), ("", 0, 0),
])
def test_strtoll(text, value, end):
    p = strtoll(text)
    assert (p.value, p.end) == (value, end)


def kinds(name, value, version=None):
    return [(p.kind, p.severity) for p in check(name, value, vtuple(version) if version else None)]


@pytest.mark.parametrize("name,value,expected", [
    ("NCCL_IB_DISABLE", "true", [("misread", "error")]),
    ("NCCL_IB_DISABLE", "false", [("misread", "info")]),
    ("NCCL_IB_DISABLE", "1", []),
    ("NCCL_IB_TC", "0106", [("misread", "warning")]),
    ("NCCL_IB_TC", "106", []),
    ("NCCL_IB_TC", "0x6a", []),
    ("NCCL_IB_TC", "256", [("invalid", "error")]),
    ("NCCL_IB_TC", "-1", []),
    ("NCCL_IB_GID_INDEX", "3", []),
    ("NCCL_P2P_LEVEL", "phb", [("invalid", "error")]),
    ("NCCL_P2P_LEVEL", "NVLINK", [("invalid", "error")]),
    ("NCCL_P2P_LEVEL", "3", [("misread", "info")]),
    ("NCCL_NET_GDR_LEVEL", "PIX", []),
    ("NCCL_ALGO", "Ring, Tree", [("invalid", "error")]),
    ("NCCL_ALGO", "ring", []),
    ("NCCL_ALGO", "allreduce:tree,ring;broadcast:ring", []),
    ("NCCL_ALGO", "Tree;Ring", [("invalid", "error")]),
    ("NCCL_PROTO", "^LL128", []),
    ("NCCL_PROTO", "Simpel", [("invalid", "error")]),
    ("NCCL_DEBUG", " info ", []),
    ("NCCL_DEBUG", "1", [("invalid", "error")]),
    ("NCCL_DEBUG_SUBSYS", "^INIT,net", []),
    ("NCCL_DEBUG_SUBSYS", "INIT;NET", [("invalid", "error")]),
    ("NCCL_SOCKET_FAMILY", "AF_INET6", []),
    ("NCCL_SOCKET_FAMILY", "ipv6", [("invalid", "error")]),
    ("NCCL_IB_ADDR_RANGE", "10.0.0.0/8", []),
    ("NCCL_IB_ADDR_RANGE", "10.0.0.0", [("invalid", "error")]),
    ("NCCL_IB_ADDR_RANGE", "10.1.0.0/16,10.2.0.0/16", [("invalid", "error")]),
    ("NCCL_COMM_ID", "10.0.0.1:5000", []),
    ("NCCL_COMM_ID", "10.0.0.1", [("invalid", "error")]),
    ("NCCL_NTHREADS", "256", []),
    ("NCCL_NTHREADS", "100", [("invalid", "warning")]),
    ("NCCL_SHM_DISABLE", "2", [("misread", "warning")]),
    ("NCCL_SET_THREAD_NAME", "t", []),
    ("NCCL_SET_THREAD_NAME", "yes", [("invalid", "error")]),
    ("NCCL_NETDEVS_POLICY", "MAX:2", []),
    ("NCCL_CTA_POLICY", "EFFICIENCY|ZERO", []),
    ("NCCL_THREAD_THRESHOLDS", "8 8 64 8 8 64", []),
    ("NCCL_CE_CHUNK_SIZE", "junk", []),           # 2.32-only, semantics unconfirmed: no guess
    ("NCCL_ASYNC_ERROR_HANDLING", "junk", []),    # external: not NCCL's to judge
])
def test_check(name, value, expected):
    assert kinds(name, value) == expected


def test_version_dependent_values():
    assert kinds("NCCL_MIN_CTAS", "40", "2.24") == [("invalid", "error")]
    assert kinds("NCCL_MIN_CTAS", "40", "2.25") == []
    assert kinds("NCCL_DEBUG", "ATTN", "2.30.7") == [("invalid", "error")]
    assert kinds("NCCL_DEBUG", "ATTN") == []
    assert kinds("NCCL_ALGO", "allreduce:ring", "2.23") == [("invalid", "error")]
    # round 22 (uccl pins NCCL 2.23.4): before 2.24.3 parseList skips a token it does not know
    assert kinds("NCCL_PROTO", "-1", "2.23.4") == [("invalid", "warning")]
    assert kinds("NCCL_PROTO", "-1", "2.24.3") == [("invalid", "error")]
    assert "NCCL 2.23.4 skips it" in check("NCCL_ALGO", "Ring,-1", (2, 23, 4))[0].message


def test_problem_offsets_point_at_the_token():
    p = check("NCCL_ALGO", "Ring, Tree")[0]
    assert (p.start, p.end, p.fix) == (5, 10, "Ring,Tree")
    p = check("NCCL_DEBUG_SUBSYS", "INIT,FOO")[0]
    assert (p.start, p.end) == (5, 8)


@pytest.mark.parametrize("value,selected,rejected", [
    ("mlx5_1", ["mlx5_1", "mlx5_10", "mlx5_19"], ["mlx5_2"]),
    ("=mlx5_1", ["mlx5_1"], ["mlx5_10"]),
    ("^=docker0,lo", ["docker01", "eth0"], ["docker0", "lo"]),
    ("^docker,lo", ["eth0"], ["docker0", "lo"]),
    ("=^eth0", [], ["eth0"]),
    ("eth", ["eth0", "eth10", "eth0.100"], ["ens1"]),
])
def test_interface_lists_select_like_nccl(value, selected, rejected):
    lst = lists.parse(value)
    assert all(lst.selects(n) for n in selected)
    assert not any(lst.selects(n) for n in rejected)


def test_ib_ports_rails_and_planes():
    lst = lists.parse("=mlx5_0:1,mlx5_1::0:1")
    assert [(e.name, e.port) for e in lst.entries] == [("mlx5_0", 1), ("mlx5_1", None)]
    assert lst.selects("mlx5_0", 1) and not lst.selects("mlx5_0", 2)


@pytest.mark.parametrize("name,value,severities", [
    ("NCCL_SOCKET_IFNAME", "eth0, eth1", ["error"]),
    ("NCCL_SOCKET_IFNAME", "=^eth0", ["error"]),
    ("NCCL_SOCKET_IFNAME", "^=docker0", []),
    ("NCCL_SOCKET_IFNAME", "e", ["warning"]),
    ("NCCL_SOCKET_IFNAME", "eth0,,eth1", ["info"]),
    ("NCCL_IB_HCA", "mlx5_0:0", ["error"]),
    ("NCCL_IB_HCA", ",".join(f"mlx5_{i}" for i in range(33)), ["warning"]),
    ("NCCL_IB_HCA", "=mlx5_0::0:0,mlx5_1::0:1", []),
])
def test_list_problems(name, value, severities):
    assert [p.severity for p in lists.problems(name, value)] == severities


def test_several_address_ranges_say_which_one_nccl_uses():
    # llm-jp/nii-sakura-cluster-configs: one range per rail; envIbAddrRange reads the first one only
    (p,) = check("NCCL_IB_ADDR_RANGE", "10.1.0.0/16,10.2.0.0/16", None)
    assert "it uses 10.1.0.0/16 and the rest is never read" in p.message and "ignores it" not in p.message



@pytest.mark.parametrize("version,severity,says", [
    ("2.30.7", "error", "one unknown entry makes NCCL drop the whole value (it keeps INIT,BOOTSTRAP,ENV)"),
    ("2.21.5", "info", "NCCL before 2.30.7 skips it and applies the other entries"),
    (None, "info", "NCCL up to 2.30.4 skips it; from 2.30.7 one unknown entry makes NCCL drop the whole value"),
])
def test_an_unknown_debug_subsystem_is_judged_by_the_release(version, severity, says):
    # NVIDIA/nccl v2.30.4-1 src/debug.cc strcasecmp's each token and skips an unknown one; 2.30.7's
    # ncclParamBitsetOf rejects the value (Google's MLPerf maxtext job sets ...,VERSION with NCCL 2.21)
    from netlint.nccl.registry import vtuple

    (p,) = check("NCCL_DEBUG_SUBSYS", "INIT,GRAPH,ENV,VERSION", vtuple(version))
    assert p.severity == severity and says in p.message and (p.start, p.end) == (15, 22)


def test_an_ib_hca_entry_that_is_a_netdev_name_is_reported(tmp_path):
    # round 15: NCCL_IB_HCA=enp137s0f0np0 (a netdev) matches no RDMA device, and NCCL leaves that NIC out of IB
    from tests.conftest import at, lint_repo

    report = lint_repo(tmp_path, {"env.sh": "export NCCL_IB_HCA=mlx5_0,enp137s0f0np0\nexport NCCL_SOCKET_IFNAME=eth0\n"
                                            "export NCCL_IB_HCA2=x\n"})
    assert [(at(f), str(f.severity)) for f in report.findings if f.code == "NCCL305"] == [((1, 27), "warning")]
    ok = lint_repo(tmp_path / "ok", {"env.sh": "export NCCL_IB_HCA=rocep1s0f0,ibp12s0,mlx5_1\n"})
    assert [f for f in ok.findings if f.code == "NCCL305"] == []


def test_ipoib_interface_names_are_netdevs_too(tmp_path):
    # round 22 (MLPerf v4.1 Clemson run.sub: NCCL_IB_HCA="ib0,ib3,ib4,ib5", IPoIB interfaces)
    from tests.conftest import at, lint_repo

    report = lint_repo(tmp_path, {"env.sh": 'export NCCL_IB_HCA="ib0,mlx5_1,ibp65s0"\n'})
    assert [at(f) for f in report.findings if f.code == "NCCL305"] == [(1, 21)]
