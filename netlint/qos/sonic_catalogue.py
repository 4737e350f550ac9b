"""What the SONiC table builders share: the CONFIG_DB table catalogue (map tables with their YANG
ranges, the QoS table names a loader sniffs for) and small helpers for entry keys and index ranges."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from netlint.located import MapNode, Scalar, Span
from netlint.qos.units import expand_range


# CONFIG_DB map tables: table -> (kind, from range, to range, from name, to name)
MAP_TABLES: dict[str, tuple[str, int, int, str, str]] = {
    "DSCP_TO_TC_MAP": ("dscp_to_tc", 63, 15, "DSCP", "Traffic Class"),
    "DOT1P_TO_TC_MAP": ("dot1p_to_tc", 7, 15, "DOT1P", "Traffic Class"),
    "TC_TO_PRIORITY_GROUP_MAP": ("tc_to_pg", 15, 7, "Traffic Class", "Priority Group"),
    "TC_TO_QUEUE_MAP": ("tc_to_queue", 15, 9, "Traffic Class", "queue index"),
    "MAP_PFC_PRIORITY_TO_QUEUE": ("pfc_to_queue", 7, 7, "pfc priority", "queue index"),
    "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": ("pfc_to_pg", 7, 7, "pfc priority", "Priority Group"),
    "TC_TO_DSCP_MAP": ("tc_to_dscp", 15, 63, "Traffic Class", "DSCP"),
}
KIND_TABLE = {v[0]: k for k, v in MAP_TABLES.items()}
# PORT_QOS_MAP field -> map kind
PORT_MAP_FIELDS = {"dscp_to_tc_map": "dscp_to_tc", "dot1p_to_tc_map": "dot1p_to_tc",
                   "tc_to_pg_map": "tc_to_pg", "tc_to_queue_map": "tc_to_queue",
                   "pfc_to_queue_map": "pfc_to_queue", "pfc_to_pg_map": "pfc_to_pg",
                   "tc_to_dscp_map": "tc_to_dscp"}

QOS_TABLES = frozenset(MAP_TABLES) | {
    "PORT_QOS_MAP", "WRED_PROFILE", "SCHEDULER", "QUEUE", "BUFFER_POOL", "BUFFER_PROFILE",
    "BUFFER_PG", "BUFFER_QUEUE", "PFC_WD", "CABLE_LENGTH", "BUFFER_PORT_INGRESS_PROFILE_LIST",
    "BUFFER_PORT_EGRESS_PROFILE_LIST", "LOSSLESS_TRAFFIC_PATTERN", "DEFAULT_LOSSLESS_BUFFER_PARAMETER"}
SNIFF = tuple(f'"{t}"' for t in ("PORT_QOS_MAP", "DSCP_TO_TC_MAP", "BUFFER_PG", "WRED_PROFILE",
                                 "BUFFER_PROFILE", "BUFFER_POOL", "SCHEDULER", "QUEUE",
                                 "TC_TO_PRIORITY_GROUP_MAP", "PFC_WD", "CABLE_LENGTH"))

ECN = ("ecn_none", "ecn_green", "ecn_yellow", "ecn_red", "ecn_green_yellow", "ecn_green_red",
       "ecn_yellow_red", "ecn_all")
U64 = 2 ** 64 - 1


@lru_cache(maxsize=256)
def _ranges(text: str) -> tuple[int, ...] | None:
    r = expand_range(text)
    return tuple(r) if r is not None else None


def port_list(text: str) -> list[str]:
    """The ports of a key's port part: ``Ethernet0,Ethernet4`` is two. orchagent splits PORT_QOS_MAP,
    QUEUE, BUFFER_PG and BUFFER_QUEUE keys on ``,`` (sonic-net/sonic-swss@e6b0c5b
    ``orchagent/qosorch.cpp`` L1806, L2058: ``tokenize(…, list_item_delimiter)``; the same in
    ``orchagent/bufferorch.cpp``), and device ``qos.json`` files write one entry for many ports."""
    if "," not in text:
        return [text]
    return [name.strip() for name in text.split(",") if name.strip()] or [text]


def _at(table: MapNode, key: Any) -> Scalar:
    """A located stand-in for an entry key (findings about a key point at the key)."""
    return table.keys_at.get(key) or Scalar(key, table.span)


_EMPTY = MapNode(Span("", 0, 0, 0, 0))
