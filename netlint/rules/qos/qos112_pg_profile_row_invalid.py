from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.qos.pg_lookup import tables
from netlint.rules.base import Rule


class PgProfileRowInvalid(Rule):
    """A `pg_profile_lookup.ini` row that buffermgrd misreads or can never use.

    What: checks each row of a SONiC `pg_profile_lookup.ini` the way buffermgrd and bufferorch read
    it. Errors: fewer than six columns, or a `size`/`xon`/`xoff`/`xon_offset` that is not a whole
    number of bytes, or a threshold that is not an integer. Warnings: a speed that is not an integer
    port speed in Mb/s (1..1600000, as `PORT.speed` is written), a cable length not written
    `<metres>m`, words after the seventh column, and a second row for the same speed and cable
    (buffermgrd keeps the last one; the finding is on the row that is dropped).

    Why: buffermgrd reads the table without checking anything and copies the strings into the
    lossless `BUFFER_PROFILE` it creates for each PFC port; bufferorch then converts them with
    `stoul`/`stol`, which throw on text, keep only a leading number (`12k` → 12) or wrap a negative
    number. Rows are looked up by the port's speed string and cable-length string, so a row keyed
    `100G` or `40` is never used and ports of that speed get no lossless profile (QOS114).

    Bad:  `100G  5m  1248  2288  165568  0  2288` and `100000 40m 1248 2288 177632` (no threshold)
    Good: `100000  5m  1248  2288  165568  0  2288`

    Fix: write speeds in Mb/s, cable lengths as `<n>m` and every size in bytes; remove the duplicate
    row. No automatic fix: the right numbers are the vendor's.

    Source: sonic-net/sonic-swss@e6b0c5b5 `cfgmgr/buffermgr.cpp` L52-97 (`readPgProfileLookupFile`:
    a line starting with `#` is a comment, six words plus an optional `xon_offset` per row, no
    checks), L146-301 (`doSpeedUpdateTask`: lookup by speed and cable strings, the profile written
    from the row); `orchagent/bufferorch.cpp` L665-723 (stoul/stol of the profile fields);
    `orchagent/port/porthlpr.cpp` L31-32 (port speed 1..1600000); sonic-net/sonic-buildimage@086b03bd
    `src/sonic-yang-models/yang-models/sonic-cable-length.yang` L51-58 (cable length pattern `[0-9]+m`),
    `sonic-port.yang` L98-104 (speed in Mb/s, 1..1600000).
    """

    code = "QOS112"
    name = "pg-profile-row-invalid"
    severity = Severity.ERROR
    summary = "pg_profile_lookup.ini row that buffermgrd misreads or never uses"

    def check(self, ws) -> Iterator[Finding]:
        for table in tables(ws):
            for p in table.problems:
                yield self.finding(p.message, p.span, key=f"{table.file}:{p.key}",
                                   severity=None if p.error else Severity.WARNING)
            for earlier, later in table.overridden:
                speed, cable = earlier.key
                yield self.finding(
                    f"second row for {speed} Mb/s and {cable}m at line {later.line}: buffermgrd keeps the last "
                    f"row for a speed and cable, so this one is never used", earlier.speed.span,
                    key=f"{table.file}:duplicate:{speed}:{cable}", severity=Severity.WARNING,
                    related=(Related(later.speed.span, "the row buffermgrd keeps"),))
