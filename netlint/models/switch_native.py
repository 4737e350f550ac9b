"""netlint's native switch QoS YAML: the pydantic models that validate it (``schemas/switch.schema.json``
is generated from :class:`NativeSwitch`). The loader converts a validated file into the normalized
:class:`~netlint.models.switch.SwitchQos`; rules never read these models."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, WithJsonSchema, field_validator

from netlint.located import Scalar
from netlint.models.base import Located, Model

Small = Annotated[int, Field(ge=0, le=63)]
TcInt = Annotated[int, Field(ge=0, le=15)]
Prio = Annotated[int, Field(ge=0, le=7)]
Bytes = Annotated[int, Field(ge=0)]
Ms = Annotated[int, Field(ge=0)]


def _key_pattern(hi: int) -> str:
    return "^(" + "|".join(str(i) for i in range(hi + 1)) + ")$"


def _intmap(key_hi: int, val_hi: int):
    """``{from: to}`` of small integers; the schema names the allowed keys (JSON keys are strings)."""
    schema = {"anyOf": [{"type": "object", "propertyNames": {"pattern": _key_pattern(key_hi)},
                         "additionalProperties": {"type": "integer", "minimum": 0, "maximum": val_hi}},
                        {"type": "null"}]}
    return Annotated[dict[Annotated[int, Field(ge=0, le=key_hi)], Located[Annotated[int, Field(ge=0, le=val_hi)]]]
                     | None, WithJsonSchema(schema)]


DscpMap = _intmap(63, 15)


def _speed_mbps(v: Any) -> Any:
    """400G / 100G / 25000 (Mb/s) / "400000" -> Mb/s."""
    from netlint.qos.units import parse_speed_mbps

    raw = v.value if isinstance(v, Scalar) else v
    mbps = parse_speed_mbps(raw)
    if mbps is None:
        raise ValueError(f"cannot read port speed {raw!r}; write e.g. 400G or 400000 (Mb/s)")
    return Scalar(mbps, v.span, v.raw, v.quoted) if isinstance(v, Scalar) else mbps


class NativeWatchdog(Model):
    """PFC watchdog: on/off and timings (SONiC PFC_WD semantics)."""

    enabled: Located[bool] | None = Field(None, description="PFC watchdog on for the lossless priorities")
    detection_ms: Located[Ms] | None = Field(None, description="Storm detection time, ms (SONiC 100..5000)")
    restoration_ms: Located[Ms] | None = Field(None, description="Restoration time, ms (SONiC 100..60000)")
    action: Located[Literal["drop", "forward", "alert"]] | None = Field(
        None, description="What the watchdog does to a stormed queue: drop, forward or alert (SONiC PFC_WD action)")
    poll_interval_ms: Located[Ms] | None = Field(
        None, description="Polling interval, ms (SONiC 100..1000); switch-wide only")


class NativePfc(Model):
    priorities: list[Located[Prio]] | None = Field(None, description="PFC-enabled (lossless) priorities")
    watchdog: NativeWatchdog | None = Field(None, description="PFC watchdog of the lossless priorities")


class NativeEcn(Model):
    """ECN/WRED on one egress queue. Thresholds in bytes (Kmin/Kmax), probability in percent."""

    enabled: Located[bool] | None = Field(None, description="ECN marking on")
    min_bytes: Located[Bytes] | None = Field(None, description="Kmin: marking starts (bytes)")
    max_bytes: Located[Bytes] | None = Field(None, description="Kmax: marking at Pmax (bytes)")
    probability: Located[Bytes] | None = Field(None, description="Pmax, percent (0..100)")
    drop: Located[bool] | None = Field(None, description="WRED drops instead of only marking")
    profile: Located[str] | None = Field(None, description="Name of the profile, when shared by name")


class NativeScheduler(Model):
    type: Located[Literal["strict", "dwrr", "wrr", "STRICT", "DWRR", "WRR"]] = Field(
        description="strict priority, or a weighted share (dwrr, wrr)")
    weight: Located[Annotated[int, Field(ge=0)]] | None = Field(
        None, description="DWRR/WRR weight or bandwidth percent")


class NativeBufferPool(Model):
    type: Located[Literal["ingress", "egress", "both"]] | None = Field(
        None, description="Which side's buffers it holds")
    mode: Located[Literal["static", "dynamic"]] | None = Field(
        None, description="static thresholds, or dynamic (alpha: a share of the free pool)")
    size: Located[Bytes] | None = Field(None, description="Pool size (bytes)")
    xoff: Located[Bytes] | None = Field(None, description="Shared headroom pool size (bytes)")


class NativeBufferProfile(Model):
    pool: Located[str] | None = Field(None, description="The buffer pool (buffer_pools key) it draws from")
    size: Located[Bytes] | None = Field(None, description="Reserved (guaranteed) buffer, bytes")
    xon: Located[Bytes] | None = Field(None, description="Fill level at which PAUSE is released (bytes)")
    xoff: Located[Bytes] | None = Field(None, description="Headroom after PAUSE (bytes); not the PAUSE trigger")
    xon_offset: Located[Bytes] | None = Field(None, description="Hysteresis above xon before PAUSE is released (bytes)")
    dynamic_th: Located[Annotated[int, Field(ge=-8, le=7)]] | None = Field(
        None, description="Dynamic threshold alpha, as log2 (-8..7): the share of free pool space a queue may take")
    static_th: Located[Bytes] | None = Field(None, description="Static threshold (bytes), with a static pool")


class NativePg(Model):
    profile: Located[str] = Field(description="Buffer profile name, or NULL (dynamic model computes it)")


class NativePort(Model):
    name: Located[str] = Field(description="Interface name (Ethernet0)")
    speed: Annotated[Located[Annotated[int, Field(ge=1)]] | None, WithJsonSchema(
        {"anyOf": [{"type": "integer", "minimum": 1},
                   {"type": "string", "pattern": r"^\s*\d+(\.\d+)?\s*[GgMmTt]?(b|bps|b/s|bE|BE|E)?\s*$"},
                   {"type": "null"}]})] = Field(
        None, description="Port speed: 400G, 100G, or Mb/s as a number (400000)")
    mtu: Located[Annotated[int, Field(ge=68, le=9216)]] | None = Field(None, description="Port MTU, bytes")
    cable_length: Located[Annotated[int, Field(ge=0)]] | None = Field(None, description="Metres")
    pfc: NativePfc | None = Field(None, description="Overrides the switch-wide pfc for this port")
    dscp_to_tc: DscpMap = Field(None, description="Overrides the switch-wide DSCP→TC map for this port")
    priority_groups: dict[Prio, NativePg] | None = Field(
        None, description="PG → buffer profile on this port (overrides the switch-wide one)")

    @field_validator("speed", mode="before")
    @classmethod
    def _speed(cls, v: Any) -> Any:
        return _speed_mbps(v)


class NativeSwitch(Model):
    """netlint's switch QoS file: one switch, switch-wide policy plus a list of ports."""

    switch: Located[str] = Field(description="Switch name (as in the inventory)")
    trust: Located[Literal["dscp", "pcp", "both", "port"]] | None = Field(
        None, description="What classifies ingress traffic: dscp, pcp (802.1p), both, or the port")
    buffer_model: Located[Literal["static", "dynamic"]] | None = Field(
        None, description="static: headroom from profiles as written; dynamic: computed from speed and cable")
    dscp_to_tc: DscpMap = Field(None, description="DSCP → traffic class")
    tc_to_pg: _intmap(15, 7) = Field(None, description="TC → priority group")
    tc_to_queue: _intmap(15, 9) = Field(None, description="TC → egress queue")
    pfc_priority_to_queue: _intmap(7, 7) = Field(None, description="PFC priority → egress queue")
    pfc: NativePfc | None = Field(None, description="Switch-wide PFC: lossless priorities and watchdog")
    ecn: dict[Prio, NativeEcn] | None = Field(None, description="Per egress queue")
    scheduler: dict[Prio, NativeScheduler] | None = Field(None, description="Per egress queue")
    buffer_pools: dict[str, NativeBufferPool] | None = Field(None, description="Buffer pools by name")
    buffer_profiles: dict[str, NativeBufferProfile] | None = Field(None, description="Buffer profiles by name")
    priority_groups: dict[Prio, NativePg] | None = Field(
        None, description="PG → buffer profile, for every port")
    ports: list[NativePort] = Field(default_factory=list,
                                    description="Ports, with what differs from the switch-wide policy")
