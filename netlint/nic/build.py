"""The builder every NIC loader feeds: values in, one :class:`NicQos` per port out.

A loader calls :meth:`NicBuilder.put` with a canonical key (a NicQos field; ``index`` for the map-like
fields) and :meth:`NicBuilder.firmware` with an NV-config name as ``mlxconfig`` prints it. When the
values name two ports (``CNP_DSCP_P1``, ``CNP_DSCP_P2``) each port gets its own NicQos and values
that name none go to both; a device query (``mlxconfig``) names its port even when it has one. A
file whose ``_P1`` values are its only port-specific ones describes the whole NIC. A later value of the
same parameter and layer replaces an earlier one, which is how the sources themselves merge
(the operator's ``rawNvConfig`` wins over the values ``roceOptimized`` implies).
"""

from __future__ import annotations

import re
from typing import Any

from netlint.located import Scalar, Span
from netlint.models.nic import NicQos, NicValue, Setting
from netlint.nic.params import BY_FIRMWARE, FIRMWARE_OTHER
from netlint.nic.text import nv_int

_PORT = re.compile(r"^(?P<base>[A-Z0-9_]+?)_P(?P<port>\d)$")

# keys whose NicQos field is a dict of Settings / of plain Scalars, indexed by ``index``
_SETTING_MAPS = ("rp_enable", "np_enable", "dcqcn", "cc_slots", "other")
_SCALAR_MAPS = ("dscp_to_prio", "prio_to_tc", "firmware_next_boot")


class NicBuilder:
    def __init__(self, file: str, fmt: str, span: Span, name: str):
        self.file, self.format, self.span, self.name = file, fmt, span, name
        self.items: list[tuple[int | None, str, Any, NicValue]] = []
        self.scope: dict[str, Any] = {}

    def put(self, key: str, value: Any, span: Span, *, layer: str, via: str, raw: str = "", index: Any = None,
            port: int | None = None, implied: bool = False) -> NicValue:
        nv = NicValue(value, span, raw, layer=layer, via=via, implied=implied)
        self.items.append((port, key, index, nv))
        return nv

    def firmware(self, name: str, raw: str, span: Span, *, via: str | None = None, implied: bool = False,
                 next_boot: bool = False) -> bool:
        """An NV-config value (``CNP_DSCP_P1``, ``True(1)``); False when netlint does not model ``name``."""
        m = _PORT.match(name)
        base, port = (m.group("base"), int(m.group("port"))) if m else (name, None)
        key = BY_FIRMWARE.get(base)
        other = base in FIRMWARE_OTHER
        if key is None and not other:
            return False
        number = nv_int(raw)
        if number is None:
            return False
        via = via or name
        if next_boot:
            self.put("firmware_next_boot", number, span, layer="firmware", via=via, raw=raw, index=base,
                     port=port, implied=implied)
            return True
        if other:
            self.put("other", number, span, layer="firmware", via=via, raw=raw, index=base, port=port, implied=implied)
        elif key == "cc_prio_mask":
            self.put("cc_prio_mask", number, span, layer="firmware", via=via, raw=raw, port=port, implied=implied)
            for prio in range(8):
                bit = bool(number >> prio & 1)
                for point in ("rp_enable", "np_enable"):
                    self.put(point, bit, span, layer="firmware", via=f"{via} bit {prio}", raw=raw, index=prio,
                             port=port, implied=implied)
        elif key in ("cnp_dscp", "cnp_priority"):
            self.put(key, number, span, layer="firmware", via=via, raw=raw, port=port, implied=implied)
        else:
            self.put("dcqcn", number, span, layer="firmware", via=via, raw=raw, index=key, port=port, implied=implied)
        return True

    def empty(self) -> bool:
        return not self.items

    def build(self, per_port: bool = False) -> list[NicQos]:
        """One NicQos per port named by the values when they name two or more (or, ``per_port``, one:
        a device query of a single-port card), else one for every port (``port`` None)."""
        ports = sorted({p for p, *_ in self.items if p is not None})
        if len(ports) < 2 and not per_port:
            ports = []
        out = []
        for port in ports or [None]:
            nic = NicQos(name=self.name, file=self.file, format=self.format, span=self.span, port=port,
                         **self.scope)
            for p, key, index, nv in self.items:
                if p is None or port is None or p == port:
                    _apply(nic, key, index, nv)
            out.append(nic)
        return out


def _apply(nic: NicQos, key: str, index: Any, nv: NicValue) -> None:
    if key == "firmware_next_boot":
        nic.firmware_next_boot[index] = nv
    elif key in _SCALAR_MAPS:
        getattr(nic, key)[index] = nv
    elif key in _SETTING_MAPS:
        getattr(nic, key).setdefault(index, Setting()).set(nv)
    elif key == "cc_algorithm":
        nic.cc_algorithm = nv
    else:
        getattr(nic, key).set(nv)


def pfc_vector(text: str) -> tuple[int, ...] | None:
    """Priorities with PFC on from an 8-entry vector: ``0,0,0,1,0,0,0,0`` (mlnx_qos, the operator's
    ``qos.pfc``) or ``00010000`` (DOCA DMS, the Spectrum-X profile); entry i is priority i."""
    s = text.strip().strip('"\'')
    bits = s.split(",") if "," in s else list(s)
    bits = [b.strip() for b in bits]
    if len(bits) != 8 or any(b not in ("0", "1") for b in bits):
        return None
    return tuple(i for i, b in enumerate(bits) if b == "1")


def trust_word(text: str) -> str | None:
    """``dscp`` / ``pcp`` from the words sources use (DMS and the operator say ``pfc`` for pcp;
    the DMS profile also has ``QOS_TRUST_MODE_DSCP``)."""
    t = text.strip().strip('"\'').lower()
    if "dscp" in t:
        return "dscp"
    if t in ("pcp", "pfc", "l2", "qos_trust_mode_pcp"):
        return "pcp"
    return None


def scalar_text(node: Any) -> str | None:
    """The text of a YAML scalar as the file has it (numbers and booleans too)."""
    if not isinstance(node, Scalar):
        return None
    v = node.value
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v) if v is not None else None
