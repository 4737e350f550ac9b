from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.qos import switches
from netlint.qos.common import names
from netlint.qos.pg_lookup import runtime_profiles
from netlint.rules.base import Rule


class PgProfileRowMissing(Rule):
    """A lossless port whose speed and cable length have no row in the SKU's `pg_profile_lookup.ini`.

    What: for a SONiC switch on the traditional (static) buffer model whose SKU folder holds
    `pg_profile_lookup.ini` (or whose inventory entry lists it among the switch's files), every port
    with `pfc_enable`, a speed and a non-zero cable length, whose lossless profile
    `pg_lossless_<speed>_<cable>_profile` the configuration does not define itself, needs a row for
    exactly that speed and cable length. Reported once per speed and cable, at the cable length of
    the first such port.

    Why: buffermgrd builds the lossless PG profile from that row; without one it logs "No PG profile
    configured for speed … and cable length …" and creates neither the profile nor the lossless
    `BUFFER_PG` — the PFC priorities of those ports get no headroom and drop under PAUSE.

    Bad:  `CABLE_LENGTH` `"Ethernet0": "7m"` on a 400G port, table rows only for 5m, 40m, 300m
    Good: `"Ethernet0": "40m"` (round the cable up to a row), or a row `400000 7m ...` from the vendor

    Fix: round the cable length up to a length the table has, or add the vendor's row; no automatic fix.

    Source: sonic-net/sonic-swss@e6b0c5b5 `cfgmgr/buffermgr.cpp` L146-301 (`doSpeedUpdateTask`:
    profile key `pg_lossless_<speed>_<cable>_profile` L183-184, "No PG profile configured" and no
    profile L238-242, an existing profile reused L246-279); sonic-net/sonic-buildimage@086b03bd
    `dockers/docker-orchagent/buffermgrd.sh` L5-16 (the table is read only without the dynamic model).
    """

    code = "QOS114"
    name = "pg-profile-row-missing"
    severity = Severity.ERROR
    summary = "Lossless port speed/cable length with no row in pg_profile_lookup.ini"

    def check(self, ws) -> Iterator[Finding]:
        for sw in switches(ws):
            table, groups = runtime_profiles(ws, sw)
            for g in groups:
                if g.row is not None:
                    continue
                first = g.ports[0]
                yield self.finding(
                    f"no row for {g.speed} Mb/s and {g.cable}m in {table.file}: buffermgrd creates no lossless "
                    f"profile for {len(g.ports)} PFC port(s) ({names(p.name for p in g.ports)}), so their lossless "
                    f"PGs get no headroom", first.cable_length.span, key=f"{sw.name}:pg-row:{g.speed}:{g.cable}",
                    related=(Related(table.span, "the SKU's lossless profile table"),))
