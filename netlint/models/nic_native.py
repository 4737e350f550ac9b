"""netlint's native NIC QoS YAML: the pydantic model that validates it (``schemas/nic.schema.json`` is
generated from :class:`NativeNic`). The loader (:mod:`netlint.loaders.nic_native`) converts a
validated file into the normalized :class:`~netlint.models.nic.NicQos`; rules never read these models.

DCQCN parameters accept any 32-bit value here: the documented ranges are the NIC2xx rules' business,
so an odd value is reported with its meaning instead of making the whole file unreadable.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, WithJsonSchema, create_model

from netlint.models.base import Located, Model
from netlint.nic.params import PARAMS, U32

Dscp = Annotated[int, Field(ge=0, le=63)]
Prio = Annotated[int, Field(ge=0, le=7)]
Tos = Annotated[int, Field(ge=0, le=255)]
U32Int = Annotated[int, Field(ge=0, le=U32)]


def _intmap(key_hi: int, val_hi: int, what: str):
    pattern = "^(" + "|".join(str(i) for i in range(key_hi + 1)) + ")$"
    schema = {"anyOf": [{"type": "object", "propertyNames": {"pattern": pattern},
                         "additionalProperties": {"type": "integer", "minimum": 0, "maximum": val_hi}},
                        {"type": "null"}], "description": what}
    return Annotated[dict[Annotated[int, Field(ge=0, le=key_hi)], Located[Annotated[int, Field(ge=0, le=val_hi)]]]
                     | None, WithJsonSchema(schema)]


def _describe(name: str) -> str:
    p = PARAMS[name]
    bits = [f"firmware {p.firmware}", "reaction point" if p.point == "rp" else "notification point"]
    if p.unit:
        bits.append(p.unit)
    if p.source.startswith("https://"):
        bits.append(f"documented range {p.low}..{p.high if p.high is not None else 'line rate'}, default {p.default}")
    return "; ".join(bits)


_PARAM_FIELDS = {name: (Located[U32Int] | None, Field(None, description=_describe(name))) for name in PARAMS}

NativeDcqcn = create_model(
    "NativeDcqcn", __base__=Model, __doc__="DCQCN per priority, the CNP class and the algorithm's parameters.",
    rp_enable=(list[Located[Prio]] | None, Field(
        None, description="Priorities with the DCQCN reaction point on (roce_rp/enable/<p>); the others are off")),
    np_enable=(list[Located[Prio]] | None, Field(
        None, description="Priorities with the DCQCN notification point on (roce_np/enable/<p>); the others are off")),
    cnp_dscp=(Located[Dscp] | None, Field(None, description="DSCP of the CNPs this NIC sends (roce_np/cnp_dscp)")),
    cnp_priority=(Located[Prio] | None, Field(
        None, description="802.1p priority of the CNPs this NIC sends (roce_np/cnp_802p_prio)")),
    **_PARAM_FIELDS,
)


class NativeNic(Model):
    """netlint's NIC QoS file: what the RDMA NICs of one node group (or one host) run with."""

    nic: Located[str] = Field(description="A name for this NIC configuration")
    node_group: Located[str] | None = Field(None, description="The inventory node group (nodes[].name) it applies to")
    host: Located[str] | None = Field(None, description="The host it was taken from, when it is one host's")
    device: Located[str] | None = Field(None, description="RDMA device (mlx5_0) or PCI address")
    interface: Located[str] | None = Field(None, description="Linux netdev (ens1np0)")
    port: Located[Annotated[int, Field(ge=1, le=4)]] | None = Field(None, description="HCA port; default: every port")
    trust: Located[Literal["dscp", "pcp"]] | None = Field(None, description="Priority trust (mlnx_qos --trust)")
    pfc: list[Located[Prio]] | None = Field(None, description="Priorities with PFC on (mlnx_qos --pfc); the others are off")
    dscp_to_priority: _intmap(63, 7, "DSCP → priority (mlnx_qos --dscp2prio)") = None
    priority_to_tc: _intmap(7, 7, "Priority → traffic class (mlnx_qos --prio_tc)") = None
    traffic_class: Located[Tos] | None = Field(
        None, description="mlx5 global traffic class (/sys/class/infiniband/<hca>/tc/<port>/traffic_class): "
                          "the ToS byte of every RoCE QP of the device")
    cma_roce_tos: Located[Tos] | None = Field(None, description="RDMA-CM default ToS byte (cma_roce_tos -t)")
    roce_mode: Located[Literal[1, 2]] | None = Field(None, description="RoCE version: 1 or 2")
    congestion_control: Located[Literal["dcqcn", "spectrum-x", "none"]] | None = Field(
        None, description="Which congestion control runs: DCQCN, Spectrum-X CC, or none")
    dcqcn: NativeDcqcn | None = Field(  # type: ignore[valid-type]
        None, description="DCQCN parameters of the NIC (reaction and notification points)")
    firmware: dict[str, Located[int | str | bool]] | None = Field(
        None, description="Firmware NV config as mlxconfig names it (CNP_DSCP_P1: 48, ROCE_CC_PRIO_MASK_P1: 8)")
