from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.rules.base import Rule


class CnpClassMismatch(Rule):
    """The CNPs the NIC sends carry another DSCP or priority than the fabric's CNP class.

    What: the NIC's CNP DSCP (`ecn/roce_np/cnp_dscp`, firmware `CNP_DSCP_Pn`) and CNP 802.1p priority
    (`cnp_802p_prio`, `CNP_802P_PRIO_Pn`) — the runtime value when a file states one, else the
    firmware value — must equal the inventory's `fabric.roce.cnp_dscp` / `cnp_priority`. The switches'
    CNP class is where they put the inventory's CNP DSCP (QOS109 judges that class); the finding names
    the TC the NIC's DSCP lands in instead. Without an inventory CNP DSCP, the NIC's CNP DSCP is
    followed through each inventory switch as QOS109 does, and a CNP that lands in a lossy queue whose
    WRED drops green packets is reported. Values the NIC Configuration Operator implies count:
    `roceOptimized: {enabled: true}` writes `CNP_DSCP_Pn=4` and `CNP_802P_PRIO_Pn=6` to every port's
    firmware (kept for N-port NICs by PR #350) unless `rawNvConfig` overrides them.

    Why: DCQCN's control loop runs on CNPs. CNPs in a class the switches treat as bulk data wait behind
    the congestion they report, or are dropped by WRED, so senders slow down late or never, queues
    reach the PFC threshold and pause the fabric. The operator's CNP DSCP 4 lands in the default class
    on a fabric whose CNP class is DSCP 48 (NVIDIA's own convention, Cumulus's RoCE default and the
    Spectrum-X profile).

    Bad:  template `roceOptimized: {enabled: true}` (CNP_DSCP 4) with inventory `cnp_dscp: 48`
    Good: the same with `rawNvConfig: [{name: CNP_DSCP_P1, value: "48"}, {name: CNP_DSCP_P2, value: "48"}]`

    Fix: the inventory's value where the file writes the token; for a value the operator implies the
    message names the `rawNvConfig` entries to add; for a dump, the sysfs file. Unsafe.

    Source: Mellanox/nic-configuration-operator@8bfbeb34 `pkg/configuration/configvalidation.go`
    L173-177 (`CNP_DSCP_Pn=4`, `CNP_802P_PRIO_Pn=6` for every port, Mellanox/nic-configuration-operator
    PR #350 "Support N-port NICs in nvconfig param generation", merged as c2425a03) and L209-232
    (`rawNvConfig` wins), README L88-93; `pkg/spectrumx/spectrumx.go` L36-42 (Spectrum-X: CNP DSCP 48);
    NVIDIA Cumulus Linux 5.14 User Guide, "RDMA over Converged Ethernet - RoCE" (CNP: DSCP 48 →
    switch priority 6, strict); Mellanox/network-operator#269 (`echo 48 > …/ecn/roce_np/cnp_dscp`);
    Linux `include/linux/mlx5/mlx5_ifc.h` (gregkh/linux@aeeea029: `cnp_dscp` 6 bits, `cnp_802p_prio`
    3 bits).
    """

    code = "NIC205"
    name = "cnp-class-mismatch"
    summary = "NIC CNP DSCP or priority is not the fabric's CNP class"
    tags = ("nic", "switch", "cross-file")

    def check(self, ws) -> Iterator[Finding]:
        from netlint.nic import roce

        if not roce.roce_transport(ws):
            return
        it = roce.intent(ws)
        for nic in ws.nics:
            dscp = nic.cnp_dscp.value
            if dscp is not None:
                if it.cnp_dscp is not None:
                    if dscp.value != it.cnp_dscp.value:
                        yield self._intent(ws, nic, dscp, it.cnp_dscp, "DSCP", "CNP_DSCP")
                else:
                    yield from self._dropped(ws, nic, dscp)
            prio = nic.cnp_priority.value
            if prio is not None and it.cnp_priority is not None and prio.value != it.cnp_priority.value:
                yield self._intent(ws, nic, prio, it.cnp_priority, "priority", "CNP_802P_PRIO")

    def _intent(self, ws, nic, value, want, what, nv) -> Finding:
        from netlint.nic import roce
        from netlint.nic.fixes import token_fix

        field = "cnp_dscp" if what == "DSCP" else "cnp_priority"
        via = value.via.replace(" (", ": ").rstrip(")") if value.via.endswith(")") else value.via
        src = f"implied by {via}" if value.implied else via
        msg = (f"{nic.label} sends CNPs with {what} {value.value} ({value.layer}, {src}), but the inventory's "
               f"CNP {what} is {want.value}")
        related = [Related(want.span, f"fabric.roce.{field}: {want.value}")]
        if what == "DSCP":
            for sw in roce.switches(ws):
                got = roce.landings(sw, value.value)
                ref = roce.landings(sw, want.value)
                if got and ref and got[0].tc != ref[0].tc:
                    msg += (f"; {sw.name} puts DSCP {value.value} in TC {got[0].tc}"
                            f"{' (default)' if got[0].defaulted else ''}, its CNP class is TC {ref[0].tc}")
                    related += [Related(got[0].span, f"{sw.name}: DSCP {value.value} -> TC {got[0].tc}"),
                                Related(ref[0].span, f"{sw.name}: CNP DSCP {want.value} -> TC {ref[0].tc}")]
                    break
        fix = token_fix(ws, nic, value, str(want.value), f"CNP {what} {want.value}")
        if fix is None and value.implied and nic.format == "nicop-template":
            port = f"_P{nic.port}" if nic.port else "_P1 and _P2"
            msg += f"; add rawNvConfig {nv}{port} = \"{want.value}\" to the template"
        elif fix is None and nic.format == "sysfs" and value.layer == "runtime":
            msg += f"; echo {want.value} > /sys/class/net/<if>/ecn/roce_np/{'cnp_dscp' if what == 'DSCP' else 'cnp_802p_prio'}"
        elif fix is None and value.layer == "firmware" and not value.implied:
            msg += f"; mlxconfig -d <dev> set {nv}{'_P' + str(nic.port) if nic.port else '_P1'}={want.value}"
        return self.finding(msg, value.span, key=f"{nic.name}:{field}", fix=fix, related=related)

    def _dropped(self, ws, nic, value) -> Iterator[Finding]:
        """QOS109's error case for the NIC's own CNP DSCP: a lossy queue whose WRED drops green."""
        from netlint.nic import roce

        for sw in roce.switches(ws):
            for land in roce.landings(sw, value.value):
                if land.lossless:
                    continue
                for port in sw.ports.values():
                    q = sw.queue_of_tc(land.tc, port)
                    qc = port.queues.get(land.tc if q is None else q)
                    wp = sw.wred_of(qc) if qc is not None else None
                    if wp is not None and wp.drops_green:
                        yield self.finding(
                            f"{nic.label} sends CNPs with DSCP {value.value}, which {sw.name} puts in lossy TC "
                            f"{land.tc}, whose WRED profile '{wp.name}' drops packets: CNPs are lost under "
                            f"congestion", value.span, key=f"{nic.name}:cnp_dscp:{sw.name}",
                            related=[Related(land.span, f"{sw.name}: DSCP {value.value} -> TC {land.tc}")],
                            severity=Severity.ERROR)
                        return
