from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Fix, Severity
from netlint.qos import switch_text, switches
from netlint.qos.common import is_dual_tor, lossless_ports, names
from netlint.qos.edits import replace_token, written
from netlint.rules.base import Rule


class LosslessTcWithoutHeadroom(Rule):
    """A lossless TC is mapped to a priority group that gets no lossless headroom.

    What: for every PFC-enabled priority (TC) of a port, the TC→PG map must send it to a PG that is
    itself PFC-enabled, and a BUFFER_PG entry written for that PG must use a profile with headroom
    (`xoff` > 0) or `"NULL"` (dynamic buffer model). SONiC's buffermgrd gives lossless headroom only
    to the PG ids listed in `pfc_enable`, so `TC 3 → PG 0` leaves RoCE without headroom even though
    PFC is on. A BUFFER_PG that is *absent* is not an error: buffermgrd creates it at run time from
    `pg_profile_lookup.ini`, the port speed and the cable length (buffermgrd) — so stock renders,
    which do not contain lossless BUFFER_PG entries, are correct. A TC absent from the TC→PG map is
    left to the platform default and not judged.

    Why: PAUSE takes a round trip to act; without headroom the bytes in flight are dropped on a
    "lossless" class (SONiC/SONiC#480: RX drops on PFC ports, "headroom buffer allocated was 0").

    Bad:
        "TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"3": "0", "4": "4"}},
        "PORT_QOS_MAP": {"Ethernet0": {"tc_to_pg_map": "AZURE", "pfc_enable": "3,4"}}
    Good:
        "TC_TO_PRIORITY_GROUP_MAP": {"AZURE": {"3": "3", "4": "4"}}

    Fix: map the TC to the PG with the same number (the stock identity; unsafe: moves buffers), or
    bind the PG to a lossless profile.

    Source: sonic-net/sonic-swss@e6b0c5b5 `cfgmgr/buffermgr.cpp` `BufferMgr::doSpeedUpdateTask`
    (L146-): profile `pg_lossless_<speed>_<cable>_profile` from the `pg_profile_lookup.ini` row,
    written to BUFFER_PG `<port>|<pfc_enable ids>` (L180-204); sonic-net/sonic-buildimage@086b03bd
    `files/build_templates/qos_config.j2` L185-200 (stock TC→PG map AZURE: 3→3, 4→4);
    sonic-net/SONiC#480.
    """

    code = "QOS102"
    name = "lossless-tc-without-headroom"
    severity = Severity.ERROR
    summary = "Lossless TC mapped to a PG with no lossless headroom"

    def check(self, ws) -> Iterator[Finding]:
        for sw in switches(ws):
            text = switch_text(ws, sw)
            wrong_map: dict[tuple[str, int], list] = {}
            no_headroom: dict[str, list] = {}
            for port in lossless_ports(sw):
                pfc = port.pfc_set()
                tcpg = sw.map_for(port, "tc_to_pg")
                for tc in sorted(pfc):
                    pg = tcpg.get(tc) if tcpg is not None else tc
                    if pg is None:
                        continue  # not in the map: the platform default, not judged
                    if pg not in pfc and not (is_dual_tor(port) and tc in (2, 6)):
                        wrong_map.setdefault((tcpg.name if tcpg else "", tc), []).append((port, pg, tcpg))
                        continue
                    b = port.pgs.get(pg)
                    if b is None or b.dynamic:
                        continue
                    prof = sw.profile_of(b)
                    if prof is not None and not prof.has_headroom:
                        no_headroom.setdefault(prof.name, []).append((port, pg, b))
            for (mname, tc), rows in sorted(wrong_map.items()):
                port, pg, tcpg = rows[0]
                ports = [r[0] for r in rows]
                token = tcpg.entries.get(tc) if tcpg is not None else None
                span = token.span if token is not None else (tcpg.span if tcpg else port.span)
                fix = Fix(f"map TC {tc} to PG {tc}", (replace_token(sw.format, token, tc, text),), safe=False) \
                    if written(token) else None
                yield self.finding(
                    f"lossless TC {tc} is mapped to PG {pg} in TC→PG map '{mname}', but only PGs "
                    f"{','.join(map(str, sorted(port.pfc_set())))} (pfc_enable) get lossless headroom, on "
                    f"{len(ports)} port(s) ({names(p.name for p in ports)})",
                    span, key=f"{sw.name}:tc_to_pg:{mname}:{tc}", fix=fix)
            for pname, rows in sorted(no_headroom.items()):
                port, pg, b = rows[0]
                ports = [r[0] for r in rows]
                prof = sw.buffer_profiles[pname]
                yield self.finding(
                    f"PG {pg} carries a lossless TC but is bound to buffer profile '{pname}', which has no "
                    f"headroom (xoff {prof.xoff.value if prof.xoff is not None else 'unset'}), on {len(ports)} "
                    f"port(s) ({names(p.name for p in ports)})",
                    b.span, key=f"{sw.name}:buffer_pg:{pname}:{pg}")
