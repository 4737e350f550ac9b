"""PFC headroom: a lower bound of the xoff a lossless PG needs (the tables are in :mod:`netlint.qos.pg_lookup`).

``xoff`` is the headroom that absorbs what is still arriving after the switch sends PAUSE: it is
not the PAUSE trigger. The bound follows the structure of SONiC's NVIDIA headroom calculation
(sonic-net/sonic-swss@e6b0c5b5 ``cfgmgr/buffer_headroom_mellanox.lua``)::

    xoff = lossless_mtu + (port_mtu + bytes_on_cable + mac_phy_delay + peer_response) × cell_occupancy
    bytes_on_cable = 2 × cable_m × speed_Mbps × 1e6 / 1.98e8 / 8     # round trip, light in cable 1.98e8 m/s

To be a *lower* bound on every ASIC (so a finding is never a vendor-table false alarm), netlint takes
the most favourable inputs of that script and the vendor tables: cell occupancy 1 (no small-packet
overhead), lossless_mtu 1024 (the lua default), mac_phy_delay 0.8 KB and peer response 3.8 KB (the
smallest ASIC_TABLE values; the pause-quanta figures are larger), no gearbox, no pipeline latency, and
no port-MTU term (the SN5600 table, which relies on a shared headroom pool, goes below a bound that
counts a 9100-byte frame: 10G/1000m xoff 24576). With these the bound stays below every row of the saved
pg_profile_lookup tables (MSN2700, SN5600, TH gen BALANCED, Nokia H6; a test checks it), which are
authoritative per SKU.
"""

from __future__ import annotations

import math
from functools import lru_cache

LIGHT_IN_CABLE_M_S = 1.98e8      # lua: 198000000
MAC_PHY_DELAY = int(0.8 * 1024)  # ASIC_TABLE mac_phy_delay 0.8 KB
PEER_RESPONSE = int(3.8 * 1024)  # ASIC_TABLE peer_response_time 3.8 KB
LOSSLESS_MTU = 1024              # LOSSLESS_TRAFFIC_PATTERN default


def bytes_on_cable(speed_mbps: int, cable_m: int) -> float:
    return 2 * cable_m * speed_mbps * 1e6 / LIGHT_IN_CABLE_M_S / 8


@lru_cache(maxsize=1024)
def min_xoff(speed_mbps: int, cable_m: int) -> int:
    """The least headroom (bytes) a lossless PG needs at this speed and cable length."""
    need = LOSSLESS_MTU + bytes_on_cable(speed_mbps, cable_m) + MAC_PHY_DELAY + PEER_RESPONSE
    return int(math.ceil(need))
