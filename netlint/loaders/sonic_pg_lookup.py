"""SONiC ``pg_profile_lookup.ini`` → :class:`~netlint.qos.pg_lookup.PgProfileTable` (``ws.switch_tables``).

Recognised by its name (``pg_profile_lookup.ini``, also with a prefix such as
``acs-msn2700.pg_profile_lookup.ini``) or, for another ``.ini`` name, by content: rows of
``speed cable size xon xoff threshold [xon_offset]`` with the cable written ``<n>m``. Problems in the
rows are findings of QOS112/QOS113 (the table is vendor data buffermgrd reads without checking),
not loader errors.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from netlint.loaders.base import Loader
from netlint.qos.pg_lookup import FILENAME, parse
from netlint.source import SourceFile

_ROW = re.compile(r"^\s*\d+\s+\d+m\s+\d+\s+\d+\s+\d+\s+-?\d+(\s+\d+)?\s*$")


class PgProfileLookupLoader(Loader):
    name = "sonic-pg-profile-lookup"
    kind = "switches"  # switch configuration: a run on it loads the switches it serves as context
    suffixes = (".ini",)

    def claims(self, src: SourceFile) -> bool:
        if src.name.endswith(FILENAME):
            return True
        rows = [ln for ln in src.text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
        return bool(rows) and sum(1 for ln in rows if _ROW.match(ln)) >= max(2, len(rows) * 0.8)

    def load(self, src: SourceFile) -> Iterator[Any]:
        yield parse(src.path, src.text)
