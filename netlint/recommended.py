"""netlint's recommended values, stated once: the built-in rules' fixes and the built-in policy packs
(``${netlint.NAME}`` in a policy's ``params``, docs/policy.md) read them from here, so a fix never
proposes what a pack then reports.

The RoCE class is NVIDIA's: DSCP 26 for RoCE data (Cumulus Linux's RoCE default, NVIDIA Cumulus Linux
5.14 User Guide, "RDMA over Converged Ethernet - RoCE"), written into the IP ToS byte as
``DSCP << 2 | ECN`` (RFC 2474 §3: DSCP is the upper six bits; RFC 3168 §5: ECN the lower two) with
the ECN bits ECT(0), ``10``: 106, the traffic class NVIDIA's RoCE setup script writes into
``/etc/nccl.conf`` as ``NCCL_IB_TC`` and into the NIC's verbs and RDMA-CM defaults
(NVIDIA/doroce-linux@1a5edb85 ``doRoCE.sh`` L27 ``tos_val=106`` and its "Add NCCL conf DSCP" step;
Mellanox/network-operator#269). ``NCCL_IB_TC`` is that byte unchanged (NVIDIA/nccl@5067397c ``src/transport/net_ib/connect.cc`` L412-419). ECT(1)
(``01``, 105) is the L4S codepoint (RFC 9331) and CE (``11``, 107) means "congestion experienced"
(RFC 3168 §5): a sender should start with neither (NIC209).
"""

from __future__ import annotations

ECT0 = 0b10            # RFC 3168 §5: ECN-Capable Transport (0)
ROCE_DSCP = 26         # NVIDIA's RoCE data class
CNP_DSCP = 48          # NVIDIA's CNP class


def tos(dscp: int, ecn: int = ECT0) -> int:
    """The ToS byte (``NCCL_IB_TC``, a NIC's traffic class) that marks ``dscp``, ECN bits ECT(0)."""
    return (dscp << 2) | ecn


ROCE_TOS = tos(ROCE_DSCP)  # 106

# The names a policy may use as ``${netlint.NAME}``. NCCL reads its environment as text, so the
# NCCL_IB_TC value is a string, as in the workspace view.
VALUES: dict[str, object] = {
    "roce_dscp": ROCE_DSCP,
    "cnp_dscp": CNP_DSCP,
    "roce_tos": ROCE_TOS,
    "nccl_ib_tc": str(ROCE_TOS),
}
