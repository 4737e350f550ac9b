from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related
from netlint.rules.base import Rule


class PfcVectorMismatch(Rule):
    """The NIC's PFC vector does not enable the fabric's RoCE priority (or shares none with the switches).

    What: the fabric's RoCE priority is the inventory's `fabric.roce.priority`, else the PFC-enabled TC
    every inventory switch puts the RoCE DSCP in (`fabric.roce.dscp`, else the DSCP the NICs or
    `NCCL_IB_TC` set). The NIC's PFC vector (`mlnx_qos --pfc`, the operator's `qos.pfc`, the
    Spectrum-X profile's `PFC`, NIC YAML `pfc`) must have that priority on. With no RoCE priority to
    go by, the NIC's PFC priorities must share at least one with each inventory switch's lossless
    priorities. The finding is on the NIC's vector, the switches' `pfc_enable` (and the inventory's
    priority) are the related locations.

    Why: PFC works hop by hop on one priority. When the switch pauses priority 3 and the NIC has PFC
    off on 3, the NIC ignores the pause frames and keeps sending into a full buffer (the switch drops
    past its headroom), and the NIC never pauses the switch when its own receive buffer fills: RoCE
    is lossy at the host link while both files look lossless alone.

    Bad:  operator `qos: {trust: dscp, pfc: "0,0,0,0,1,0,0,0"}` with the switch's `pfc_enable: "3"`
    Good: `pfc: "0,0,0,1,0,0,0,0"`

    Fix: turn the fabric's RoCE priority on in the vector, in the file's own form; for a saved
    `mlnx_qos` output the message names `mlnx_qos -i <if> --pfc …`. Unsafe: it changes which traffic
    the host pauses. (When the NIC maps the RoCE DSCP to another priority than the fabric's, that is
    XC610's finding, not this one.)

    Source: IEEE 802.1Qbb (PFC pauses per priority on one link); NVIDIA/doroce-linux@6dc37a78
    `doRoCE.sh` L250-251 and L373 (PFC on the priority of the RoCE DSCP, `mlnx_qos --pfc`);
    Mellanox/nic-configuration-operator@8bfbeb34 README L94 (PFC on priority 3);
    sonic-net/sonic-buildimage@086b03bd `files/build_templates/qos_config.j2` L470-474 (`pfc_enable`
    3,4); Mellanox/network-operator#269 (`mlnx_qos --pfc=0,0,0,1,0,0,0,0`).
    """

    code = "NIC202"
    name = "pfc-vector-mismatch"
    summary = "NIC PFC vector lacks the fabric's RoCE priority"
    tags = ("nic", "switch", "cross-file")

    def check(self, ws) -> Iterator[Finding]:
        from netlint.nic import roce

        if not roce.roce_transport(ws):
            return
        sws = roce.switches(ws)
        for nic in ws.nics:
            vec = nic.pfc.value
            if vec is None:
                continue
            have = set(vec.value)
            wanted = roce.fabric_priorities(ws, nic)
            if wanted:
                missing = [(p, stmt, rows) for p, stmt, rows in wanted if p not in have]
                if missing:
                    yield self._missing(ws, nic, have, missing, sws)
            elif sws and have:
                yield from self._disjoint(ws, nic, have, sws)

    def _missing(self, ws, nic, have, missing, sws) -> Finding:
        from netlint.nic import roce
        from netlint.nic.fixes import pfc_fix

        prios = sorted(p for p, _, _ in missing)
        shown = ",".join(map(str, prios))
        p, stmt, rows = missing[0]
        if stmt is not None:
            why = f"the inventory's RoCE priority {stmt.value}"
        else:
            why = f"RoCE priority {p}: {rows[0].switch.name} puts the RoCE DSCP in TC {p}, PFC-enabled"
        msg = (f"{nic.label} enables PFC on {_fmt(have)} but not on {shown}, {why}: the NIC ignores the "
               f"pause frames for it and never pauses the switch")
        related = [Related(stmt.span, f"fabric.roce.priority: {stmt.value}")] if stmt is not None else []
        for sw in sws:
            spans = roce.pfc_tokens(sw, p)
            if spans:
                related += [Related(s, f"{sw.name}: PFC on priority {p}") for s in spans[:2]]
            else:
                related += [Related(s, f"{sw.name}: PFC vector") for s in roce.pfc_vector_spans(sw, 1)]
        want = have | set(prios)
        fix = pfc_fix(ws, nic, want, f"PFC on {_fmt(want)}")
        if fix is None and nic.format == "mlnx_qos":
            msg += f"; run mlnx_qos -i <if> --pfc {','.join('1' if i in want else '0' for i in range(8))}"
        return self.finding(msg, nic.pfc.value.span, key=f"{nic.name}:pfc", fix=fix, related=related)

    def _disjoint(self, ws, nic, have, sws) -> Iterator[Finding]:
        from netlint.nic import roce

        for sw in sws:
            theirs = set(sw.lossless_priorities())
            if not theirs or theirs & have:
                continue
            related = [Related(s, f"{sw.name}: PFC vector") for s in roce.pfc_vector_spans(sw, 2)]
            yield self.finding(
                f"{nic.label} enables PFC on {_fmt(have)}, {sw.name} on {_fmt(theirs)}: no priority is "
                f"lossless at both ends of the host link", nic.pfc.value.span, key=f"{nic.name}:pfc:{sw.name}",
                related=related)
            return


def _fmt(prios) -> str:
    return ",".join(map(str, sorted(prios))) or "no priority"
