"""The NIC QoS / DCQCN parameters netlint knows: one canonical name each, with the name every source
uses for it, its unit, range and documented default.

Canonical names are the MLNX_OFED sysfs leaf names (``/sys/class/net/<if>/ecn/roce_rp/<name>``), the
names rules read from :attr:`NicQos.dcqcn <netlint.models.nic.NicQos>`.

Sources (cited in rule docs as well):

- DOCA "DCQCN CC Parameters" (https://networking-docs.nvidia.com/doca/archive/3-4-0/dcqcn-cc-parameters):
  the WinOF / MLNX_OFED / NVConfig (firmware) name of each parameter, its unit, range and default;
  ``ROCE_CC_PRIO_MASK`` is the firmware form of the per-priority "Enable".
- MLNX_OFED "Explicit Congestion Notification (ECN)"
  (https://docs.nvidia.com/networking/display/mlnxofedv23041130/explicit+congestion+notification+(ecn)):
  ``/sys/class/net/<if>/ecn/<roce_rp|roce_np>/enable/<prio 0..7>`` and the parameter files beside it.
- Linux ``drivers/infiniband/hw/mlx5/cong.c`` (gregkh/linux@d809cf3f L43-64): the debugfs names under
  ``/sys/kernel/debug/mlx5/<pci>/cc_params/``; writing ``np_cnp_prio`` clears ``np_cnp_prio_mode``
  (``mlx5_ib_set_cc_param_mask_val``). ``include/linux/mlx5/mlx5_ifc.h`` (gregkh/linux@aeeea029,
  ``struct mlx5_ifc_cong_control_r_roce_ecn_np_bits`` / ``_rp_bits``): ``cnp_dscp`` is 6 bits,
  ``cnp_802p_prio`` 3 bits, ``clamp_tgt_rate`` and ``clamp_tgt_rate_after_time_inc`` 1 bit, the
  other parameters 32 bits.

Units, ranges and defaults are only given where the DOCA table states them; ``None`` means netlint
has no public statement for it (rules must then not judge the value).
"""

from __future__ import annotations

from typing import NamedTuple

DOCA = "https://networking-docs.nvidia.com/doca/archive/3-4-0/dcqcn-cc-parameters"
KERNEL = "gregkh/linux@d809cf3f drivers/infiniband/hw/mlx5/cong.c L43-64; include/linux/mlx5/mlx5_ifc.h"
U32 = 2**32 - 1


class Param(NamedTuple):
    name: str                 # canonical (MLNX_OFED sysfs) name
    point: str                # "rp" (reaction point, sender) | "np" (notification point, receiver)
    firmware: str             # mlxconfig / NVConfig name without the _P<port> suffix
    debugfs: str              # leaf under /sys/kernel/debug/mlx5/<pci>/cc_params/
    unit: str | None          # as DOCA states it
    low: int | None
    high: int | None          # None: "line rate" (Mb/s) or not stated
    default: int | None
    source: str


def _p(name, point, firmware, debugfs, unit=None, low=0, high=U32, default=None, source=KERNEL):
    return Param(name, point, firmware, debugfs, unit, low, high, default, source)


# Rate parameters in Mb/s go up to the line rate, which only the inventory knows (high=None).
PARAMS: dict[str, Param] = {p.name: p for p in (
    _p("clamp_tgt_rate", "rp", "CLAMP_TGT_RATE", "rp_clamp_tgt_rate", "bool", 0, 1),
    _p("clamp_tgt_rate_after_time_inc", "rp", "CLAMP_TGT_RATE_AFTER_TIME_INC", "rp_clamp_tgt_rate_ati", "bool", 0, 1),
    _p("rpg_time_reset", "rp", "RPG_TIME_RESET", "rp_time_reset"),
    _p("rpg_byte_reset", "rp", "RPG_BYTE_RESET", "rp_byte_reset"),
    _p("rpg_threshold", "rp", "RPG_THRESHOLD", "rp_threshold"),
    _p("rpg_max_rate", "rp", "RPG_MAX_RATE", "rp_max_rate"),
    _p("rpg_ai_rate", "rp", "RPG_AI_RATE", "rp_ai_rate"),
    _p("rpg_hai_rate", "rp", "RPG_HAI_RATE", "rp_hai_rate"),
    _p("rpg_gd", "rp", "RPG_GD", "rp_gd", "log2 shift from alpha to the rate decrease", default=11, source=DOCA),
    _p("rpg_min_dec_fac", "rp", "RPG_MIN_DEC_FAC", "rp_min_dec_fac", "%", 0, 100, 50, DOCA),
    _p("rpg_min_rate", "rp", "RPG_MIN_RATE", "rp_min_rate", "Mb/s", 1, None, 1, DOCA),
    _p("rate_to_set_on_first_cnp", "rp", "RATE_TO_SET_ON_FIRST_CNP", "rp_rate_to_set_on_first_cnp", "Mb/s",
       0, None, 0, DOCA),
    _p("dce_tcp_g", "rp", "DCE_TCP_G", "rp_dce_tcp_g", "fixed point, 10 fractional bits", 0, 1023, 1019, DOCA),
    _p("dce_tcp_rtt", "rp", "DCE_TCP_RTT", "rp_dce_tcp_rtt", "µs", 1, 131071, 1, DOCA),
    _p("rate_reduce_monitor_period", "rp", "RATE_REDUCE_MONITOR_PERIOD", "rp_rate_reduce_monitor_period", "µs",
       1, U32, 4, DOCA),
    _p("initial_alpha_value", "rp", "INITIAL_ALPHA_VALUE", "rp_initial_alpha_value",
       "fixed point, 10 fractional bits", 1, 1023, 1023, DOCA),
    _p("min_time_between_cnps", "np", "MIN_TIME_BETWEEN_CNPS", "np_min_time_between_cnps"),
)}

# Fields of NicQos that are not DCQCN algorithm parameters but have the same three names.
CNP_DSCP = Param("cnp_dscp", "np", "CNP_DSCP", "np_cnp_dscp", "DSCP", 0, 63, None, KERNEL)
CNP_PRIORITY = Param("cnp_802p_prio", "np", "CNP_802P_PRIO", "np_cnp_prio", "802.1p priority", 0, 7, None, KERNEL)

# Firmware (mlxconfig) names that are no DCQCN parameter but matter to the RoCE path; kept in
# NicQos.other under their own name. ROCE_CC_PRIO_MASK, CNP_DSCP and CNP_802P_PRIO have fields.
FIRMWARE_OTHER = ("ROCE_CC_ALGORITHM", "ROCE_CC_LEGACY_DCQCN", "USER_PROGRAMMABLE_CC", "ROCE_RTT_RESP_DSCP",
                  "ROCE_RTT_RESP_DSCP_MODE", "ROCE_CC_STEERING_EXT", "ROCE_ADAPTIVE_ROUTING_EN",
                  "MULTIPATH_DSCP")

BY_FIRMWARE = {p.firmware: p.name for p in PARAMS.values()}
BY_DEBUGFS = {p.debugfs: p.name for p in PARAMS.values()}
BY_FIRMWARE.update({CNP_DSCP.firmware: "cnp_dscp", CNP_PRIORITY.firmware: "cnp_priority",
                    "ROCE_CC_PRIO_MASK": "cc_prio_mask"})
BY_DEBUGFS.update({CNP_DSCP.debugfs: "cnp_dscp", CNP_PRIORITY.debugfs: "cnp_priority"})
# sysfs leaves under ecn/roce_np/ that are no DCQCN parameter
SYSFS_NP = {"cnp_dscp": "cnp_dscp", "cnp_802p_prio": "cnp_priority"}


def in_range(name: str, value: int) -> bool | None:
    """Whether ``value`` is inside the stated range of parameter ``name`` (None: no stated range)."""
    p = PARAMS.get(name)
    if p is None or p.low is None:
        return None
    if value < p.low:
        return False
    return True if p.high is None or value <= p.high else False
