from __future__ import annotations

import math
from collections import Counter
from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.qos.pg_lookup import PgRow, tables
from netlint.rules.base import Rule


class PgProfileInconsistent(Rule):
    """`pg_profile_lookup.ini` rows whose xon, xoff and size contradict each other.

    What: three checks on the rows buffermgrd keeps. (1) `xoff` 0: the lossless profile gets no
    headroom at all (error). (2) At one speed, `xoff` must not shrink as the cable grows: a row for a
    longer cable with less headroom than a shorter one is a typo or a stale row (warning). (3) A table
    sizes its PGs by one rule — `size = xon` when `xoff` comes from a shared headroom pool,
    `size = xon + xoff` with private headroom, or one fixed guaranteed size on other ASICs; a row
    (at most one in ten) that breaks the rule every other row follows is reported (warning).

    Why: buffermgrd copies the row into the lossless profile of every PFC port of that speed and
    cable without checking it. Headroom must hold what arrives during a round trip of the cable
    after PAUSE is sent, so it grows with the cable; a size off the table's own rule reserves
    buffer the other rows do not (or less than their headroom accounting needs).

    Bad:  `10000  250m  43008  19456  23552  0` in a table whose 39 other rows have size = xon (19456)
    Good: `10000  250m  19456  19456  23552  0`

    Fix: take the values from the vendor's current table or headroom calculation; no automatic fix.

    Source: sonic-net/sonic-swss@e6b0c5b5 `cfgmgr/buffermgr.cpp` L146-301 (profile written from the
    row as is); `cfgmgr/buffer_headroom_mellanox.lua` L166-193 (xoff grows with the propagation
    delay of the cable; size = xon with a shared headroom pool, else xon + xoff + overhead).
    """

    code = "QOS113"
    name = "pg-profile-inconsistent"
    severity = Severity.WARNING
    summary = "pg_profile_lookup.ini xon/xoff/size that contradict each other"

    def check(self, ws) -> Iterator[Finding]:
        for table in tables(ws):
            rows = sorted(table.effective().values(), key=lambda r: r.line)
            for r in rows:
                if r.xoff is not None and r.xoff.value == 0:
                    yield self.finding(f"xoff 0 for {r.speed.value} Mb/s and {r.cable.value}m: the lossless profile "
                                       f"buffermgrd builds from this row has no headroom", r.xoff.span,
                                       key=f"{table.file}:xoff0:{r.key}", severity=Severity.ERROR)
            yield from self._cable_order(table.file, rows)
            yield from self._size_rule(table.file, rows)

    def _cable_order(self, file: str, rows: list[PgRow]) -> Iterator[Finding]:
        by_speed: dict[int, list[PgRow]] = {}
        for r in rows:
            if r.xoff is not None:
                by_speed.setdefault(r.speed.value, []).append(r)
        for speed, group in sorted(by_speed.items()):
            best: PgRow | None = None
            for r in sorted(group, key=lambda r: (r.cable.value, r.line)):
                if best is not None and r.cable.value > best.cable.value and r.xoff.value < best.xoff.value:
                    yield self.finding(
                        f"xoff {r.xoff.value} B for {speed} Mb/s over {r.cable.value} m is below the "
                        f"{best.xoff.value} B this table gives the same speed over {best.cable.value} m: a longer "
                        f"cable holds more bytes in flight, so its headroom cannot be smaller", r.xoff.span,
                        key=f"{file}:cable-order:{r.key}",
                        related=(Related(best.xoff.span, f"{best.cable.value} m row"),))
                if best is None or r.xoff.value >= best.xoff.value:
                    best = r

    def _size_rule(self, file: str, rows: list[PgRow]) -> Iterator[Finding]:
        full = [r for r in rows if r.size is not None and r.xon is not None and r.xoff is not None]
        if len(full) < 5:
            return
        common = Counter(r.size.value for r in full).most_common(1)[0][0]
        rules = {
            "size = xon": lambda r: r.xon.value,
            "size = xon + xoff": lambda r: r.xon.value + r.xoff.value,
            f"size = {common}": lambda r: common,
        }
        name, want = max(rules.items(), key=lambda kv: sum(r.size.value == kv[1](r) for r in full))
        off = [r for r in full if r.size.value != want(r)]
        if not off or len(off) > max(1, len(full) // 10) or len(full) - len(off) < math.ceil(0.75 * len(full)):
            return
        for r in off:
            expected = want(r)
            diff = r.size.value - expected
            yield self.finding(
                f"size {r.size.value} B for {r.speed.value} Mb/s and {r.cable.value}m breaks the rule the other "
                f"{len(full) - len(off)} rows of this table follow ({name}, here {expected} B): this PG reserves "
                f"{abs(diff)} B {'more' if diff > 0 else 'less'} than the table's rule gives", r.size.span,
                key=f"{file}:size-rule:{r.key}")
