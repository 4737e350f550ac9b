"""The hardware catalog: GPU, NVLink and NIC figures the fabric model and the inventory use.

Sources per figure: dense BF16 peaks and HBM from NVIDIA's A100/H100/H200/B200 datasheets (A100 312
TFLOP/s as Narayanan et al. 2021 §5 uses it); NVLink line rates per direction (18 links × 25 GB/s on
H100, 50 GB/s on B200); achievable NVLink from NCCL's per-link constants (NVIDIA/nccl
``src/graph/topo.h`` L21-24 at 5067397c: SM80 20.0, SM90 20.6, SM100 40.1 GB/s per link) and "effective NVLink bandwidth
of 370GB/s" (NVIDIA/nccl-tests#212); NVLS all-reduce busbw ~480 GB/s on 8 H100 (nccl-tests#212);
NIC rates "46-48GB/s per NIC" at NDR 400G (nccl-tests#290) and 12.2 GB/s at 100G (nccl-tests#29).
Bandwidths are GB/s **per direction**; FLOP/s are **dense** (no 2:4 sparsity). Vendor
"bidirectional" totals are halved here on purpose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Gpu:
    name: str
    bf16_dense_tflops: float
    nvlink_gbps: float          # per GPU, per direction, line rate (GB/s)
    nvlink_effective: float     # what NCCL achieves per GPU per direction (GB/s)
    nvlink_domain: int          # GPUs sharing NVLink/NVSwitch in the usual system
    hbm_gb: float
    nvls_busbw: float | None = None   # all-reduce bus bandwidth with NVLink SHARP (NVSwitch reduction)


# hardware.md §2.1 and §2.2. Effective NVLink: NCCL's per-link constants × links
# (SM80 20.0×12 = 240, SM90 20.6×18 = 370.8, SM100 40.1×18 = 721.8); MI300X: 0.82 × line rate.
# NVLS: "On 8 GPUs, you should reach a peak busBw of ~480GB/s" for an H100 all-reduce with NVLink SHARP
# (sjeaugey, NVIDIA/nccl-tests#212); H200 has the same NVSwitch generation. Left unknown (None, ring
# only) where no maintainer figure was found.
GPUS: dict[str, Gpu] = {g.name: g for g in (
    Gpu("A100-SXM-40GB", 312.0, 300.0, 240.0, 8, 40),
    Gpu("A100-SXM-80GB", 312.0, 300.0, 240.0, 8, 80),
    Gpu("H100-SXM", 989.4, 450.0, 370.8, 8, 80, 480.0),
    Gpu("H800-SXM", 989.0, 200.0, 160.0, 8, 80),
    Gpu("H200", 989.0, 450.0, 370.8, 8, 141, 480.0),
    Gpu("B200", 2250.0, 900.0, 721.8, 8, 180),
    Gpu("GB200", 2500.0, 900.0, 721.8, 72, 186),
    Gpu("MI300X", 1307.4, 448.0, 367.0, 8, 192),
)}

# Common spellings people write in inventories.
GPU_ALIASES = {
    "A100": "A100-SXM-80GB", "A100-80GB": "A100-SXM-80GB", "A100-SXM4-80GB": "A100-SXM-80GB",
    "A100-40GB": "A100-SXM-40GB", "H100": "H100-SXM", "H100-SXM5": "H100-SXM", "H800": "H800-SXM",
    "H200-SXM": "H200", "B200-SXM": "B200", "GB200-NVL72": "GB200",
}

# hardware.md §2.5 "Suggested defaults": NIC 0.94-0.96 × line rate (46-48 of 50 GB/s for NDR,
# nccl-tests #290; 12.2 of 12.5 GB/s at 100 Gb/s, nccl-tests #29). netlint takes 0.94, the low end,
# so "cannot sustain" findings are never triggered by an optimistic figure.
NIC_ACHIEVABLE_FRACTION = 0.94
NVLINK_ACHIEVABLE_FRACTION = 0.82   # 370 / 450, nccl-tests #212

_SPEED = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([GgMm])(?:b(?:ps|/s)?|bE|BE)?\s*$")


def gpu(name: str) -> Gpu | None:
    return GPUS.get(name) or GPUS.get(GPU_ALIASES.get(name, ""))


def gpu_names() -> list[str]:
    return sorted(GPUS) + sorted(GPU_ALIASES)


def link_gbit(speed: str | int | float) -> float | None:
    """A link speed in Gb/s from '400G', '100GbE', '200Gbps', '400000M' or a bare number of Gb/s."""
    if isinstance(speed, (int, float)) and not isinstance(speed, bool):
        return float(speed)
    m = _SPEED.match(str(speed))
    if not m:
        return None
    value = float(m.group(1))
    return value / 1000.0 if m.group(2) in "Mm" else value


def link_gbytes(speed: str | int | float) -> float | None:
    """Line rate in GB/s per direction (1 byte = 8 bits)."""
    gbit = link_gbit(speed)
    return None if gbit is None else gbit / 8.0
