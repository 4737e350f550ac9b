"""The text-dump NIC loaders (mlxconfig query, mlnx_qos, sysfs/debugfs listings): every value at its
own token, in the layer it belongs to."""

from __future__ import annotations

import re

from nic_helpers import FIXTURES, load, pos, where

MLX = FIXTURES / "mlxconfig-cx7.txt"
QOS = FIXTURES / "mlnx_qos-ens1np0.txt"
ECN = FIXTURES / "sysfs-ecn.txt"
VALUES = FIXTURES / "sysfs-values.txt"


def column(path, name: str, k: int) -> tuple[int, int]:
    """(line, col) of the k-th value column of mlxconfig parameter ``name``."""
    for i, line in enumerate(path.read_text().splitlines(), 1):
        toks = list(re.finditer(r"\S+", line))
        names = [t.group(0) for t in toks]
        if name in names:
            return i, toks[names.index(name) + 1 + k].start() + 1
    raise AssertionError(name)


# -- mlxconfig query ---------------------------------------------------------------------------------

def test_mlxconfig_reads_the_current_column_per_port():
    nics, findings, formats = load(MLX)
    assert formats == ("nic-mlxconfig",) and not findings
    p1, p2 = sorted(nics, key=lambda n: n.port)
    assert (p1.port, p2.port, p1.format) == (1, 2, "mlxconfig")
    assert p1.device.value == "0000:1a:00.0" and pos(p1.device) == where(MLX, "Device:", "0000:1a:00.0")
    # ROCE_CC_PRIO_MASK_P1: Default 255, Current 8 -> DCQCN on priority 3 only, both points, firmware
    mask = p1.cc_prio_mask.firmware
    assert (mask.value, mask.layer, mask.via, pos(mask)) == (8, "firmware", "ROCE_CC_PRIO_MASK_P1",
                                                             column(MLX, "ROCE_CC_PRIO_MASK_P1", 1))
    assert p1.rp_enabled(3).value is True and p1.np_enabled(3).value is True
    assert p1.rp_enabled(0).value is False and pos(p1.rp_enabled(0)) == pos(mask)
    assert p1.rp_enable[3].runtime is None
    cnp = p1.cnp_dscp.firmware
    assert (cnp.value, pos(cnp)) == (26, column(MLX, "CNP_DSCP_P1", 1))
    assert p2.cnp_dscp.value.value == 48 and p1.cnp_priority.value.value == 6
    dec = p1.param("rpg_min_dec_fac")
    assert (dec.value, dec.via, pos(dec)) == (0, "RPG_MIN_DEC_FAC_P1", column(MLX, "RPG_MIN_DEC_FAC_P1", 1))
    assert p1.param("clamp_tgt_rate_after_time_inc").value == 1  # True(1)
    assert p1.other["ROCE_CC_ALGORITHM"].firmware.raw == "ECN(0)"
    # device-wide parameters (no _Pn) belong to both ports; port 1's values stay off port 2
    assert p2.other["USER_PROGRAMMABLE_CC"].firmware.value == 0 and p2.param("rpg_min_dec_fac") is None


def test_mlxconfig_keeps_a_pending_next_boot_value():
    nics, _, _ = load(MLX)
    p2 = next(n for n in nics if n.port == 2)
    nxt = p2.firmware_next_boot["ROCE_CC_PRIO_MASK"]
    assert (nxt.value, pos(nxt)) == (0, column(MLX, "ROCE_CC_PRIO_MASK_P2", 2))
    assert p2.cc_prio_mask.firmware.value == 8  # what runs now


def test_mlxconfig_next_boot_only_query(tmp_path):
    text = ("Device #1:\n----------\n\nDevice type:    ConnectX6DX\nDevice:         /dev/mst/mt4125_pciconf0\n\n"
            "Configurations:                              Next Boot\n"
            "         ROCE_CC_PRIO_MASK_P1                255\n"
            "         CNP_DSCP_P1                         48\n")
    path = tmp_path / "fw.txt"
    path.write_text(text)
    (nic,), _, _ = load(path)
    assert nic.port == 1 and nic.device.value == "/dev/mst/mt4125_pciconf0"
    assert nic.cnp_dscp.firmware.value == 48 and pos(nic.cnp_dscp.firmware) == (9, 46)
    assert all(nic.rp_enabled(p).value for p in range(8))


# -- mlnx_qos ----------------------------------------------------------------------------------------

def test_mlnx_qos_trust_pfc_dscp_map_and_tcs():
    (nic,), findings, formats = load(QOS)
    assert formats == ("nic-mlnx-qos",) and not findings
    assert nic.interface.value == "ens1np0" and nic.format == "mlnx_qos"
    trust = nic.trust.runtime
    assert (trust.value, trust.layer, pos(trust)) == ("dscp", "runtime", where(QOS, "Priority trust state", "dscp"))
    pfc = nic.pfc.runtime
    assert pfc.value == (3,) and nic.pfc_priorities() == {3}
    assert pos(pfc) == where(QOS, "enabled", "0")
    # the fault in this dump: DSCP 26 sits on priority 4 (a wrapped second `prio:4` line)
    d26 = nic.dscp_to_prio[26]
    assert (d26.value, pos(d26)) == (4, where(QOS, "prio:4 dscp:26", "26"))
    assert nic.priority_of_dscp(26) is d26
    assert nic.dscp_to_prio[48].value == 6 and len(nic.dscp_to_prio) == 64
    tc = nic.prio_to_tc[0]
    assert (tc.value, pos(tc)) == (1, where(QOS, "priority:  0", "0"))
    assert nic.other["cable_len"].runtime.value == 7


def test_mlnx_qos_pcp_trust_has_no_dscp_priority(tmp_path):
    path = tmp_path / "qos.log"
    path.write_text("DCBX mode: OS controlled\nPriority trust state: pcp\nCable len: 7\nPFC configuration:\n"
                    "\tpriority    0   1   2   3   4   5   6   7\n\tenabled     0   0   0   0   0   0   0   0   \n")
    (nic,), _, _ = load(path)
    assert nic.trust.value.value == "pcp" and nic.pfc_priorities() == frozenset()
    assert nic.priority_of_dscp(26) is None


# -- sysfs / configfs / debugfs listings -------------------------------------------------------------

def test_grep_listing_of_ecn():
    (nic,), findings, formats = load(ECN)
    assert formats == ("nic-sysfs",) and not findings
    assert nic.interface.value == "ens1np0" and nic.format == "sysfs"
    np3, rp3 = nic.np_enabled(3), nic.rp_enabled(3)
    assert (np3.value, np3.via, pos(np3)) == (True, "roce_np/enable/3", where(ECN, "roce_np/enable/3:", "1"))
    assert (rp3.value, pos(rp3)) == (False, (where(ECN, "roce_rp/enable/3:", ":")[0],
                                             where(ECN, "roce_rp/enable/3:", ":")[1] + 1))
    cnp = nic.cnp_dscp.runtime
    assert (cnp.value, pos(cnp)) == (48, where(ECN, "cnp_dscp:", "48"))
    g = nic.dcqcn["dce_tcp_g"].runtime
    assert (g.value, g.layer, pos(g)) == (1019, "runtime", where(ECN, "dce_tcp_g:", "1019"))
    assert nic.param("min_time_between_cnps").value == 4 and nic.cnp_priority.value.value == 6
    assert nic.np_enabled_any() is np3


def test_path_value_listing_configfs_and_debugfs():
    nics, findings, _ = load(VALUES)
    assert not findings
    by = {n.name: n for n in nics}
    net, ib, pci = by["ens2np0"], by["mlx5_1"], by["0000:1a:00.0"]
    assert net.trust.runtime.value == "pcp" and pos(net.trust.runtime) == where(VALUES, "qos/trust", "pcp")
    assert net.rp_enabled(3).value is True and net.cnp_dscp.runtime.value == 46
    tclass = ib.traffic_class.runtime  # "Global tclass=104": the number is the value
    assert (tclass.value, ib.port, pos(tclass)) == (104, 1, where(VALUES, "traffic_class", "104"))
    assert ib.cma_roce_tos.runtime.value == 106 and ib.roce_mode.runtime.value == 2
    g = pci.dcqcn["dce_tcp_g"].runtime  # debugfs name rp_dce_tcp_g; the path holds colons
    assert (g.value, g.via, pos(g)) == (2048, "rp_dce_tcp_g", where(VALUES, "rp_dce_tcp_g:", "2048"))
    assert pci.cnp_dscp.runtime.value == 48 and pci.cnp_priority.runtime.value == 6
    assert pci.device.value == "0000:1a:00.0"


def test_text_that_is_no_dump_is_not_claimed(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("Set trust to dscp and enable PFC on priority 3.\nConfigurations: see the wiki\n")
    nics, findings, formats = load(path)
    assert not nics and formats == () and [f.code for f in findings] == ["NL007"]
