from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding
from netlint.rules.base import Rule


class DcqcnParameterInvalid(Rule):
    """A DCQCN parameter is outside its documented range, or set to a value that turns DCQCN off.

    What: every DCQCN parameter a NIC file sets (sysfs `ecn/roce_rp/*`, debugfs `cc_params`, firmware
    `RPG_*` / `DCE_TCP_*` …, NIC YAML `dcqcn:`) is checked against the range NVIDIA documents for it
    (`dce_tcp_g` 0..1023, `initial_alpha_value` 1..1023, `dce_tcp_rtt` 1..131071 µs,
    `rpg_min_dec_fac` 0..100 %, `rpg_min_rate` ≥ 1 Mb/s, `clamp_tgt_rate*` 0/1 …), and the rate
    parameters against the NIC's line rate from the inventory (`rpg_min_rate`,
    `rate_to_set_on_first_cnp` ≤ line rate). Two values are in range but switch the algorithm off:
    `rpg_min_dec_fac` 100 ("will prevent rate reductions at all") and `rpg_min_rate` equal to the line
    rate (the sender may never go below full speed). Parameters without a documented range
    (`rpg_time_reset`, `rpg_threshold`, `rpg_ai_rate` …) are not judged, nor is anything on a NIC whose
    file runs Spectrum-X CC instead of DCQCN. `rpg_min_dec_fac` 0 is legal: it only lifts the bound on
    one decrease, which DCQCN's own α/2 step still limits.

    Why: an out-of-range value is refused or truncated by the firmware (the NIC then runs something
    nobody wrote); a disabling value leaves DCQCN nominally on while senders never slow down, so
    congestion ends in PFC pauses instead of rate cuts.

    Bad:  `dcqcn: {rpg_min_dec_fac: 100}`, `DCE_TCP_G_P1 = 2048`, `rpg_min_rate: 400000` on a 400G NIC
    Good: `rpg_min_dec_fac: 50`, `DCE_TCP_G_P1 = 1019`, `rpg_min_rate: 1` (the defaults)

    Fix: NVIDIA's documented default where the file writes the token (NIC YAML, operator template).
    Unsafe: it changes how senders react to congestion.

    Source: DOCA "DCQCN CC Parameters" (https://networking-docs.nvidia.com/doca/archive/3-4-0/dcqcn-cc-parameters:
    units, ranges and defaults; `rpg_min_dec_fac` "defines the maximal ratio of rate decrease in a
    single event"); Mellanox community "DCQCN Parameters" (https://community.mellanox.com/docs/DOC-2790:
    "Setting min_dec_fac= 100 will prevent rate reductions at all"); Linux
    `include/linux/mlx5/mlx5_ifc.h` (gregkh/linux@aeeea029, `cong_control_r_roce_ecn_rp` field widths).
    """

    code = "NIC207"
    name = "dcqcn-parameter-invalid"
    summary = "DCQCN parameter out of range or disabling the algorithm"
    tags = ("nic",)

    def check(self, ws) -> Iterator[Finding]:
        from netlint.nic import roce
        from netlint.nic.params import PARAMS, in_range

        for nic in ws.nics:
            if not nic.dcqcn or roce.uses_dcqcn(roce.peers(ws, nic)) is False:
                continue
            rate = None
            for name, setting in sorted(nic.dcqcn.items()):
                p = PARAMS.get(name)
                for v in (setting.firmware, setting.runtime):
                    if p is None or v is None or not isinstance(v.value, int):
                        continue
                    problem = None
                    if in_range(name, v.value) is False:
                        hi = "line rate" if p.high is None else p.high
                        problem = f"outside its documented range {p.low}..{hi}" + (f" {p.unit}" if p.unit else "")
                    elif name == "rpg_min_dec_fac" and v.value == 100:
                        problem = "100 %, which prevents every rate reduction: DCQCN never slows a sender"
                    elif p.high is None and name in ("rpg_min_rate", "rate_to_set_on_first_cnp"):
                        rate = rate if rate is not None else roce.line_rate_mbps(ws, nic)
                        if rate is not None and v.value > rate:
                            problem = f"above the NIC's line rate {rate} Mb/s"
                        elif rate is not None and name == "rpg_min_rate" and v.value == rate:
                            problem = "the line rate itself: a sender may never go below full speed"
                    if problem is None:
                        continue
                    yield self._finding(ws, nic, name, v, p, problem)

    def _finding(self, ws, nic, name, v, p, problem) -> Finding:
        from netlint.nic.fixes import token_fix

        fix = None
        if p.default is not None:
            fix = token_fix(ws, nic, v, str(p.default), f"{name} {p.default} (NVIDIA's default)")
        return self.finding(f"{nic.label}: {name} = {v.value} ({v.layer} {v.via}) is {problem}", v.span,
                            key=f"{nic.name}:{name}:{v.layer}", fix=fix)
