from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related
from netlint.rules.base import Rule


class TrustNotDscp(Rule):
    """The NIC trusts PCP on a RoCE fabric that classifies traffic by DSCP.

    What: a NIC file (NIC Configuration Operator template, Spectrum-X profile, `mlnx_qos` output,
    netlint NIC YAML) sets the trust mode to PCP (`mlnx_qos --trust pcp`; the operator writes `pfc`)
    while the fabric marks RoCE by DSCP: the inventory's transport is `roce` and it declares the RoCE
    DSCP (`fabric.roce.dscp`), or an inventory switch binds a DSCP→TC map, or a launch sets
    `NCCL_IB_TC`. A fabric with no DSCP evidence (an L2 RoCE fabric on VLAN priorities) is not judged.

    Why: the trust mode decides how the ConnectX classifies packets into priorities: by the VLAN PCP
    or by the IP DSCP. RoCE v2 on a routed fabric is untagged, so under PCP trust every RoCE packet
    the NIC receives is priority 0, whatever DSCP the switch and NCCL agreed on: the NIC's PFC on the
    RoCE priority never protects it and the NIC's receive buffer drops it instead of pausing the
    switch. The Linux driver starts in PCP trust, so DSCP trust must be set on every port.

    Bad:  `roceOptimized: {enabled: true, qos: {trust: pfc, pfc: "0,0,0,1,0,0,0,0"}}`
    Good: `roceOptimized: {enabled: true, qos: {trust: dscp, pfc: "0,0,0,1,0,0,0,0"}}`

    Fix: `dscp` in the file's own word (operator template, Spectrum-X profile, NIC YAML); for a saved
    `mlnx_qos` output the message names `mlnx_qos -i <if> --trust dscp`. Unsafe: it reclassifies the
    host's traffic.

    Source: Linux `drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c` (gregkh/linux@0c81c68f,
    `mlx5e_trust_initialize`: trust starts as `MLX5_QPTS_TRUST_PCP`) and the QPTS patch "net/mlx5:
    QPTS and QPDPM register firmware command support" (netdev, 2017: "When the port is in pcp/dscp
    trust state, packet is routed by hardware to matching priority based on its pcp/dscp value");
    NVIDIA/doroce-linux@6dc37a78 `doRoCE.sh` L40 and L373 (`mlnx_qos --trust=dscp` for RoCE);
    Mellanox/nic-configuration-operator@8bfbeb34 README L94 (default trust dscp with PFC on 3),
    `pkg/consts/consts.go` L167-168 (`pfc` is PCP trust); Mellanox/network-operator#269.
    """

    code = "NIC201"
    name = "trust-not-dscp"
    summary = "NIC trusts PCP on a RoCE fabric that marks DSCP"
    tags = ("nic",)

    def check(self, ws) -> Iterator[Finding]:
        from netlint.nic import roce
        from netlint.nic.fixes import token_fix

        if not roce.roce_transport(ws):
            return
        why = self._dscp_evidence(ws)
        if why is None:
            return
        for nic in ws.nics:
            trust = nic.trust.value
            if trust is None or trust.value != "pcp":
                continue
            how = f"'{trust.raw}'" if trust.raw and trust.raw != "pcp" else "pcp"
            msg = (f"{nic.label} trusts PCP ({how}) on a RoCE fabric that marks DSCP ({why[0]}): untagged "
                   f"RoCE v2 packets are classified as priority 0, not by their DSCP")
            fix = token_fix(ws, nic, trust, "dscp", "trust DSCP")
            if fix is None and nic.format == "mlnx_qos":
                msg += "; run mlnx_qos -i <if> --trust dscp"
            related = [Related(why[1], why[0])] if why[1] is not None else []
            yield self.finding(msg, trust.span, key=f"{nic.name}:trust", fix=fix, related=related)

    @staticmethod
    def _dscp_evidence(ws):
        from netlint.nic import roce

        it = roce.intent(ws)
        if it.dscp is not None:
            return f"inventory fabric.roce.dscp {it.dscp.value}", it.dscp.span
        for sw in roce.switches(ws):
            rows = [r for r in sw.dscp_to_tc(0) if r[1] is not None]
            if rows:
                return f"{sw.name} classifies by a DSCP→TC map", rows[0][1]
        tos = roce.nccl_tos(ws)
        if tos:
            return tos[0].label, tos[0].token.span if tos[0].token is not None else None
        return None
