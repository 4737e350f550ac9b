from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Severity
from netlint.qos import switches
from netlint.qos.common import is_dual_tor, lossless_ports, names, related_ports
from netlint.rules.base import Rule


class TooManyLosslessPriorities(Rule):
    """More than two lossless (PFC) priorities on a port.

    What: warns when a port enables PFC on more than two priorities. SONiC's dual-ToR profile
    (2,3,4,6: two of them carry bounced-back traffic remapped to avoid deadlock) is a platform-approved
    exception and is not reported.

    Why: every lossless priority needs its own PG headroom (hundreds of KB to MB per port at 400G and
    long cables) out of a shared buffer, and many ASICs/NOSes support only one or two lossless PGs
    per port ("PFC Pause Frames priority only 3 & 4 are supported HW"). More lossless classes also
    mean more PFC deadlock and storm surface.

    Bad:  `"pfc_enable": "1,2,3,4"`
    Good: `"pfc_enable": "3,4"` (SONiC) or `pfc: {priorities: [3]}` (NVIDIA RoCE default)

    Fix: keep PFC on the RoCE priority (and at most one more); no automatic fix, the intent is yours.

    Source: sonic-net/sonic-buildimage@086b03bd `files/build_templates/qos_config.j2` L160-165
    (LOSSLESS_TC ['3','4']), L470 (dual-ToR 2,3,4,6); sonic-net/SONiC
    `doc/qos/SONiC_ROCEv2_support.md` ("PFC Pause Frames priority only 3 & 4 are supported HW");
    Ansible `dellemc.enterprise_sonic.sonic_roce` docs (`pfc_priority`: "two priority values
    separated by comma").
    """

    code = "QOS107"
    name = "too-many-lossless-priorities"
    severity = Severity.WARNING
    summary = "More than two lossless priorities on a port"

    def check(self, ws) -> Iterator[Finding]:
        for sw in switches(ws):
            groups: dict[tuple, list] = {}
            for port in lossless_ports(sw):
                pfc = port.pfc_set()
                if len(pfc) > 2 and not is_dual_tor(port):
                    groups.setdefault(tuple(sorted(pfc)), []).append(port)
            for prios, ports in sorted(groups.items()):
                span = ports[0].pfc_enable_token.span
                yield self.finding(
                    f"{len(prios)} lossless priorities ({','.join(map(str, prios))}) on {len(ports)} port(s) "
                    f"({names(p.name for p in ports)}); keep PFC on at most two", span,
                    key=f"{sw.name}:lossless-count:{','.join(map(str, prios))}",
                    related=related_ports(sw, ports[1:], "also on {port}", skip=span))
