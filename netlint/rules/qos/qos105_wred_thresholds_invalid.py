from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Severity
from netlint.qos import switches
from netlint.qos.common import port_mtu
from netlint.rules.base import Rule

MIN_FRAME = 1500  # when the switch states no MTU: the smallest Ethernet MTU, so a finding is certain


class WredThresholdsInvalid(Rule):
    """WRED/ECN thresholds or probability are impossible or useless.

    What, per colour (green/yellow/red) of every WRED profile:
    - `min_threshold` (Kmin) greater than `max_threshold` (Kmax): error (SONiC YANG: "max threshold
      must be greater than or equal to min threshold").
    - drop/mark probability (Pmax) outside 0..100 percent: error (YANG range).
    - a threshold smaller than one MTU while that colour is marked or dropped: warning. Marking (or
      dropping) then starts as soon as a single frame waits in the queue, so ordinary bursts are
      marked and DCQCN throttles senders almost all the time.
      The MTU is the largest port MTU of the switch, else 1500.

    Why: SONiC rejects the first two (`config load` fails); the third silently cripples throughput.

    Bad:  `"green_min_threshold": "4096", "green_max_threshold": "2048", "green_drop_probability": "125"`
    Good: `"green_min_threshold": "1048576", "green_max_threshold": "2097152", "green_drop_probability": "5"`

    Fix: swap or correct the thresholds; the right Kmin/Kmax depend on the ASIC (AZURE 1 MB/2 MB or
    2 MB/10 MB at 5 %, TH5 AI 128 KB/256 KB, Cumulus 150 KB/1.5 MB at 100 %), so no value is proposed.

    Source: sonic-net/sonic-buildimage@086b03bd
    `src/sonic-yang-models/yang-models/sonic-wred-profile.yang` (thresholds in bytes; `must` max ≥
    min per colour, L67-86; drop probability range 0..100, L152-170); per-ASIC values:
    `files/build_templates/qos_config.j2` L494-508 (AZURE_LOSSLESS 1 MB/2 MB at 5 %), NVIDIA Cumulus
    Linux 5.14 User Guide, "RDMA over Converged Ethernet - RoCE" (150 KB/1.5 MB).
    """

    code = "QOS105"
    name = "wred-thresholds-invalid"
    severity = Severity.ERROR
    summary = "WRED Kmin > Kmax, probability out of range, or thresholds below one MTU"

    def check(self, ws) -> Iterator[Finding]:
        for sw in switches(ws):
            mtu = port_mtu(sw) or MIN_FRAME
            for wp in sw.wred_profiles.values():
                mode = wp.ecn.value if wp.ecn is not None else "ecn_none"
                for color, c in wp.colors():
                    lo, hi, prob = c.min_threshold, c.max_threshold, c.drop_probability
                    key = f"{sw.name}:wred:{wp.name}:{color}"
                    if lo is not None and hi is not None and lo.value > hi.value:
                        yield self.finding(
                            f"WRED profile '{wp.name}': {color} min threshold {lo.value} B is greater than the "
                            f"max threshold {hi.value} B (Kmin must be ≤ Kmax)", hi.span, key=key + ":order")
                    if prob is not None and not 0 <= prob.value <= 100:
                        yield self.finding(
                            f"WRED profile '{wp.name}': {color} probability {prob.value} is outside 0..100 "
                            f"(percent)", prob.span, key=key + ":probability")
                    active = (color in mode or mode == "ecn_all") or (c.enabled is not None and c.enabled.value)
                    small = [t for t in (lo, hi) if t is not None and 0 <= t.value < mtu]
                    if active and small and not (lo is not None and hi is not None and lo.value > hi.value):
                        t = small[0]
                        which = "min" if t is lo else "max"
                        yield self.finding(
                            f"WRED profile '{wp.name}': {color} {which} threshold {t.value} B is smaller than one "
                            f"{mtu}-byte frame: marking/dropping starts with a single frame queued", t.span,
                            key=key + ":mtu", severity=Severity.WARNING)
