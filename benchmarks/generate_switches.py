"""Generate N switch QoS files (SONiC config_db.json and native YAML, half each) for benchmarks.

``python benchmarks/generate_switches.py OUT_DIR N``. Each file is a realistic 32-port leaf: PORT,
PORT_QOS_MAP, QUEUE, BUFFER_PG, PFC_WD, CABLE_LENGTH, maps and profiles — what a rendered SONiC
QoS config holds (see shared/corpus/switch/sonic-buildimage/rendered-qos).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

PORTS = [f"Ethernet{i * 8}" for i in range(32)]


def sonic(index: int) -> str:
    dscp = {str(d): "1" for d in range(64)}
    dscp.update({"3": "3", "4": "4", "46": "5", "48": "6", "8": "0"})
    db = {
        "DEVICE_METADATA": {"localhost": {"hostname": f"leaf{index:04d}", "hwsku": "Mellanox-SN4600C-C64"}},
        "PORT": {p: {"speed": "400000", "mtu": "9100", "admin_status": "up"} for p in PORTS},
        "CABLE_LENGTH": {"AZURE": {p: "5m" for p in PORTS}},
        "DSCP_TO_TC_MAP": {"AZURE": dscp},
        "TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {str(t): ("3" if t == 3 else "4" if t == 4 else "0") for t in range(8)}},
        "TC_TO_QUEUE_MAP": {"AZURE": {str(t): str(t) for t in range(8)}},
        "MAP_PFC_PRIORITY_TO_QUEUE": {"AZURE": {str(t): str(t) for t in range(8)}},
        "WRED_PROFILE": {"AZURE_LOSSLESS": {"ecn": "ecn_all", "green_min_threshold": "1048576",
                                            "green_max_threshold": "2097152", "green_drop_probability": "5",
                                            "wred_green_enable": "true"}},
        "SCHEDULER": {"scheduler.0": {"type": "DWRR", "weight": "14"}, "scheduler.1": {"type": "DWRR", "weight": "15"}},
        "PORT_QOS_MAP": {p: {"dscp_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE", "tc_to_pg_map": "AZURE",
                             "pfc_to_queue_map": "AZURE", "pfc_enable": "3,4", "pfcwd_sw_enable": "3,4"}
                         for p in PORTS},
        "QUEUE": {f"{p}|{q}": ({"scheduler": "scheduler.1", "wred_profile": "AZURE_LOSSLESS"} if q in (3, 4)
                               else {"scheduler": "scheduler.0"}) for p in PORTS for q in range(8)},
        "BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "30000000"}},
        "BUFFER_PROFILE": {"pg_lossless_400000_5m_profile": {"pool": "ingress_lossless_pool", "size": "19456",
                                                             "xon": "19456", "xoff": "80000", "dynamic_th": "0"}},
        "BUFFER_PG": {f"{p}|3-4": {"profile": "pg_lossless_400000_5m_profile"} for p in PORTS},
        "PFC_WD": {**{p: {"action": "drop", "detection_time": "200", "restoration_time": "400"} for p in PORTS},
                   "GLOBAL": {"POLL_INTERVAL": "200"}},
    }
    return json.dumps(db, indent=4)


def native(index: int) -> str:
    lines = [f"switch: spine{index:04d}", "trust: dscp",
             "dscp_to_tc: {26: 3, 48: 6}", "pfc:", "  priorities: [3]",
             "  watchdog: {enabled: true, detection_ms: 200, restoration_ms: 400, action: drop}",
             "ecn:", "  3: {enabled: true, min_bytes: 150000, max_bytes: 1500000, probability: 100}",
             "scheduler:", "  3: {type: dwrr, weight: 50}", "  6: {type: strict}", "ports:"]
    lines += [f"  - {{name: swp{i}, speed: 400G, mtu: 9216, cable_length: 3}}" for i in range(1, 33)]
    return "\n".join(lines) + "\n"


def generate(out: Path, n: int) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        if i % 2 == 0:
            path = out / f"leaf{i:04d}" / "config_db.json"
            text = sonic(i)
        else:
            path = out / f"spine{i:04d}.yaml"
            text = native(i)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


if __name__ == "__main__":
    generate(Path(sys.argv[1]), int(sys.argv[2]))
