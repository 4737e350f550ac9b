"""NIC QoS and DCQCN: one normalized, located model for every NIC format (the host end of RoCE).

What a loader yields
--------------------
Every NIC loader yields :class:`NicQos` objects into ``ws.nics``; rules never need to know the
format. One NicQos is what one file says about one NIC scope: a device port (``mlxconfig`` ``_P1`` and
``_P2`` give two), an interface (``mlnx_qos -i``, ``/sys/class/net/<if>/…``), an RDMA device
(``/sys/class/infiniband/<hca>/…``), a PCI function (debugfs ``cc_params``), a NIC Configuration
Operator template, or a netlint NIC YAML file. Formats (``nic.format``): ``nicop-template``
(``NicConfigurationTemplate``), ``spectrum-x-profile``, ``mlxconfig``, ``mlnx_qos``, ``sysfs``,
``native``.

Where a value lives: firmware and runtime
-----------------------------------------
A ConnectX parameter can be set in two places. The *firmware* NV config (``mlxconfig -d <dev> set``,
the operator's ``rawNvConfig``) is stored on the card and loaded at boot; the *runtime* value (sysfs
``/sys/class/net/<if>/ecn/…``, debugfs ``cc_params``, ``mlnx_qos``, ``cma_roce_tos``, DOCA DMS) is
what the driver uses until the next reboot and overrides the firmware value meanwhile. So each
parameter is a :class:`Setting` with ``firmware`` and ``runtime`` (either may be None) and
``setting.value`` = runtime if known, else firmware: what the NIC runs with. Settings only hold what
a file states: an absent parameter is None (unknown: rules stay silent), never a made-up default.

Every value is a :class:`NicValue` (a :class:`~netlint.located.Scalar`: ``.value``, ``.span``) that also
says where it came from: ``.layer`` (``firmware`` | ``runtime``), ``.via`` (the key or path as the
source names it, e.g. ``CNP_DSCP_P1`` or ``ecn/roce_np/cnp_dscp``), ``.implied`` (True when no token
wrote it: the NIC Configuration Operator's ``roceOptimized: {enabled: true}`` sets ``CNP_DSCP_Pn=4``;
such values carry the span of the statement that implies them, like the switch model's platform
defaults). ``str(value.span)`` is ``file:line:col``.

API for rules (NIC2xx, XC6xx)
-----------------------------
- ``nic.trust``: Setting of ``"dscp"`` | ``"pcp"`` (``mlnx_qos --trust``; the operator says ``pfc``
  for pcp and netlint normalizes it to ``pcp``).
- ``nic.pfc``: Setting whose value is the sorted tuple of priorities with PFC on (``(3,)``), located
  at the whole written vector; ``nic.pfc_priorities()`` -> frozenset | None.
- ``nic.dscp_to_prio``: {dscp: NicValue(priority)} as written (``mlnx_qos`` table, native YAML);
  ``nic.priority_of_dscp(d)`` -> NicValue | None: the map's entry, else (trust dscp, the entry not
  written) the ConnectX default priority ``d >> 3`` as an implied value (NVIDIA doRoCE.sh,
  NVIDIA/doroce-linux@6dc37a78 doRoCE.sh L151 "DSCP=TOS>>2, PRIO=DSCP>>3"); None under trust pcp
  or unknown trust.
- ``nic.prio_to_tc``: {priority: NicValue(tc)} (``mlnx_qos`` ``tc: N … priority: p`` rows).
- ``nic.traffic_class`` (the mlx5 global traffic class, ``/sys/class/infiniband/<hca>/tc/<port>/
  traffic_class``: the ToS byte the kernel puts on every RoCE QP of the device instead of the one the
  application asks for; NVIDIA/doroce-linux@6dc37a78 doRoCE.sh L436-440 writes it "to force verbs
  interface TCLASS", openucx/ucx#11105), ``nic.cma_roce_tos`` (RDMA-CM's default ToS, configfs
  ``rdma_cm/<hca>/ports/<port>/default_roce_tos``, kernel Documentation/ABI/testing/configfs-rdma_cm;
  only QPs made through RDMA-CM get it), ``nic.dms_tos`` (the operator's ``qos.tos``, applied
  through DOCA DMS ``/interfaces/interface/nvidia/roce/config/tos``, whose scope DMS does not document).
  All three are ToS bytes: DSCP = tos >> 2, ECN bits = tos & 3 (:func:`tos_parts`).
- ``nic.roce_mode``: Setting of 1 | 2 (RoCE v1 / v2; operator ``roceMode``, ``cma_roce_mode``).
- ``nic.rp_enable`` / ``nic.np_enable``: {priority: Setting(bool)}: DCQCN reaction point (the sender
  cuts its rate on a CNP) and notification point (the receiver sends CNPs on ECN-marked packets) per
  priority. Firmware ``ROCE_CC_PRIO_MASK_Pn`` bit p sets both (DOCA DCQCN table: the firmware form of
  the per-priority "Enable"); ``nic.cc_prio_mask`` keeps the mask token itself. ``nic.rp_enabled(p)`` /
  ``nic.np_enabled(p)`` -> NicValue | None. NVIDIA's "HowTo Configure DCQCN (RoCE CC) values for
  ConnectX-4 (Linux)" says CNP sending is handled per port, any priority enabled on the NP enabling it
  (quoted in ROCm/mori#658), so judge the NP with ``nic.np_enabled_any()`` and the RP per priority.
- ``nic.cnp_dscp``, ``nic.cnp_priority``: Settings of the CNP's DSCP (0..63) and 802.1p priority (0..7).
- ``nic.dcqcn``: {name: Setting(int)} for every DCQCN parameter, canonical MLNX_OFED names
  (:data:`netlint.nic.params.PARAMS` has unit, range, default and source of each);
  ``nic.param(name)`` -> NicValue | None.
- ``nic.cc_algorithm``: NicValue(``"dcqcn"`` | ``"spectrum-x"`` | ``"none"``) when a file says which
  congestion control runs; ``nic.cc_slots``: {slot: Setting(bool)} (DMS ``cc/slot[id=N]/config/
  enabled``; the Spectrum-X RA profile names slot 15 "DCQCN"). ``nic.uses_dcqcn()`` -> bool | None:
  False when the file turns DCQCN off in favour of Spectrum-X CC (R11: DCQCN rules stay silent).
- ``nic.other``: {name: Setting} for RoCE-related knobs without a field (``ROCE_RTT_RESP_DSCP``,
  ``USER_PROGRAMMABLE_CC``, ``cable_len``, ``np_cnp_prio_mode`` …), keyed by the source's name.
- ``nic.firmware_next_boot``: {NV name: NicValue}: an ``mlxconfig`` value whose "Next Boot" column
  differs from "Current" (applied at the next reboot).
- ``nic.conflicts()`` -> [(name, firmware NicValue, runtime NicValue)] where both layers are in this
  file and differ; across files of one node group use :func:`netlint.nic.join.layer_conflicts`.
- Scope: ``nic.name``, ``nic.file``, ``nic.format``, ``nic.span`` (the document or first line),
  ``nic.device`` (mlx5_0, a PCI address or an mst device, as written), ``nic.interface`` (netdev),
  ``nic.port`` (1, 2 or None = every port), ``nic.host``, ``nic.node_group`` (Scalars when the file
  names them). :func:`netlint.nic.join.nic_groups` binds each NicQos to its inventory node group(s).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

from netlint.compact import compact
from netlint.located import Scalar, Span

LAYERS = ("firmware", "runtime")


class NicValue(Scalar):
    """A located value and where it came from (``layer``, ``via``, ``implied``)."""

    __slots__ = ("layer", "via", "implied")

    def __init__(self, value: Any, span: Span, raw: str = "", *, layer: str, via: str,
                 implied: bool = False, quoted: bool = False):
        super().__init__(value, span, raw if raw else str(value), quoted)
        self.layer, self.via, self.implied = layer, via, implied

    def __repr__(self) -> str:
        return f"NicValue({self.value!r} {self.layer} via {self.via} @ {self.span.line}:{self.span.col})"


def _obj(cls):
    return compact(dataclass(slots=True, kw_only=True, eq=False)(cls))


@_obj
class Setting:
    """One parameter: the firmware (NV config) value and the runtime (driver) value, either unknown."""

    firmware: Scalar | None = None  # NV config value, loaded at boot (mlxconfig, rawNvConfig)
    runtime: Scalar | None = None   # driver value until reboot (sysfs, mlnx_qos, DMS); overrides firmware

    @property
    def value(self) -> NicValue | None:
        """What the NIC runs with: the runtime value when known, else the firmware value."""
        return self.runtime if self.runtime is not None else self.firmware

    def set(self, v: NicValue) -> None:
        if v.layer == "firmware":
            self.firmware = v
        else:
            self.runtime = v


def _setting():
    return field(default_factory=Setting)


def _d():
    return field(default_factory=dict)


@_obj
class NicQos:
    """The QoS and congestion control of one NIC scope as one file states it (see the module docstring)."""

    name: str                               # a label: the device, interface or template name as the file has it
    file: str                               # display path of the file
    format: str                             # nicop-template, spectrum-x-profile, mlxconfig, mlnx_qos, sysfs, native
    span: Span
    device: Scalar | None = None            # RDMA device, PCI address or mst device, as written
    interface: Scalar | None = None         # Linux netdev
    port: int | None = None                 # HCA port (1, 2); None: every port of the device
    host: Scalar | None = None              # host name, when the file names one
    node_group: Scalar | None = None        # inventory node group, when the file names one
    trust: Setting = _setting()             # "dscp" | "pcp"
    pfc: Setting = _setting()               # sorted tuple of the priorities with PFC on
    dscp_to_prio: dict[int, Scalar] = _d()  # DSCP -> priority, as written
    prio_to_tc: dict[int, Scalar] = _d()    # priority -> traffic class (ETS)
    traffic_class: Setting = _setting()     # mlx5 global traffic class: ToS byte of every RoCE QP
    cma_roce_tos: Setting = _setting()      # RDMA-CM default ToS byte
    dms_tos: Setting = _setting()           # NIC Configuration Operator qos.tos (DOCA DMS roce tos)
    roce_mode: Setting = _setting()         # 1 | 2 (RoCE v1 / v2)
    cc_prio_mask: Setting = _setting()      # firmware ROCE_CC_PRIO_MASK (bit p: DCQCN on priority p)
    rp_enable: dict[int, Setting] = _d()    # priority -> DCQCN reaction point on
    np_enable: dict[int, Setting] = _d()    # priority -> DCQCN notification point on
    cnp_dscp: Setting = _setting()          # DSCP of the CNPs this NIC sends
    cnp_priority: Setting = _setting()      # 802.1p priority of the CNPs this NIC sends
    dcqcn: dict[str, Setting] = _d()        # DCQCN parameter (MLNX_OFED name) -> value
    cc_algorithm: Scalar | None = None      # "dcqcn" | "spectrum-x" | "none", when the file says
    cc_slots: dict[int, Setting] = _d()     # congestion-control slot -> enabled
    other: dict[str, Setting] = _d()        # RoCE-related knobs without a field, by the source's name
    firmware_next_boot: dict[str, Scalar] = _d()  # NV name -> mlxconfig Next Boot value that differs from Current

    # ---- lookups -------------------------------------------------------------------------------
    def pfc_priorities(self) -> frozenset[int] | None:
        v = self.pfc.value
        return frozenset(v.value) if v is not None else None

    def priority_of_dscp(self, dscp: int) -> NicValue | None:
        """The priority this NIC gives traffic it sends (and classifies) with ``dscp`` (see module doc)."""
        entry = self.dscp_to_prio.get(dscp)
        if entry is not None:
            return entry
        trust = self.trust.value
        if trust is None or trust.value != "dscp":
            return None
        return NicValue(dscp >> 3, trust.span, layer=trust.layer, implied=True,
                        via="ConnectX default DSCP -> priority (priority = DSCP >> 3)")

    def rp_enabled(self, prio: int) -> NicValue | None:
        s = self.rp_enable.get(prio)
        return s.value if s is not None else None

    def np_enabled(self, prio: int) -> NicValue | None:
        s = self.np_enable.get(prio)
        return s.value if s is not None else None

    def np_enabled_any(self) -> NicValue | None:
        """An enabled NP priority (CNP generation is per port), else a disabled one, else None."""
        values = [s.value for s in self.np_enable.values() if s.value is not None]
        on = [v for v in values if v.value]
        return on[0] if on else (values[0] if values else None)

    def param(self, name: str) -> NicValue | None:
        s = self.dcqcn.get(name)
        return s.value if s is not None else None

    def uses_dcqcn(self) -> bool | None:
        """False when the file runs another congestion control (Spectrum-X CC) or turns DCQCN off,
        True when it says DCQCN runs, None when it does not say."""
        if self.cc_algorithm is not None:
            return self.cc_algorithm.value == "dcqcn"
        return None

    def settings(self) -> Iterator[tuple[str, Setting]]:
        """Every Setting with a dotted name (``trust``, ``rp_enable.3``, ``dcqcn.rpg_min_dec_fac``)."""
        for name in ("trust", "pfc", "traffic_class", "cma_roce_tos", "dms_tos", "roce_mode", "cc_prio_mask",
                     "cnp_dscp", "cnp_priority"):
            yield name, getattr(self, name)
        for group in ("rp_enable", "np_enable", "dcqcn", "cc_slots", "other"):
            for key, s in sorted(getattr(self, group).items(), key=lambda kv: str(kv[0])):
                yield f"{group}.{key}", s

    def conflicts(self) -> list[tuple[str, NicValue, NicValue]]:
        """(name, firmware, runtime) for each parameter this file sets in both layers to different values."""
        return [(name, s.firmware, s.runtime) for name, s in self.settings()
                if s.firmware is not None and s.runtime is not None and s.firmware.value != s.runtime.value]

    @property
    def label(self) -> str:
        """How messages name this NIC: interface, device and port as known, else the file's name."""
        parts = [str(x.value) for x in (self.interface, self.device) if x is not None]
        if self.port is not None:
            parts.append(f"port {self.port}")
        return " ".join(parts) or self.name


def tos_parts(tos: int) -> tuple[int, int]:
    """(DSCP, ECN bits) of a ToS / traffic-class byte: DSCP is the upper six bits (RFC 2474 §3), ECN
    the lower two (RFC 3168 §5: 00 Not-ECT, 10 ECT(0), 01 ECT(1), 11 CE)."""
    return tos >> 2, tos & 3
