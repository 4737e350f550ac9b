"""Baseline: accept the findings a repo has today, fail only on new ones.

``netlint check --write-baseline F`` records every reported finding; ``--baseline F`` then
suppresses the findings it records. An entry is keyed by file, rule code and the finding's logical
identity (``Finding.key``: a YAML/JSON path, a variable name, a port) — never by line number, so
editing a file around a finding does not bring it back. A count per key keeps the ratchet: a second
finding with the same identity is new. A finding without a key is identified by its message.

The file is JSON, sorted, one entry per line group, so it diffs well in review::

    {"netlint-baseline": 1,
     "findings": [{"file": "switches/leaf01/config_db.json", "code": "QOS108",
                   "key": "PORT.Ethernet16.mtu", "count": 1, "message": "port MTU 1500 ..."}]}

Paths are relative to the project root (the folder of the netlint configuration), as in reports.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from netlint.findings import Finding

FORMAT_VERSION = 1


class BaselineError(Exception):
    pass


def identity(f: Finding) -> tuple[str, str, str]:
    return (f.file, f.code, f.key or f.message)


@dataclass
class Baseline:
    path: Path
    entries: Counter = field(default_factory=Counter)
    messages: dict[tuple[str, str, str], str] = field(default_factory=dict)

    @classmethod
    def read(cls, path: Path) -> "Baseline":
        from netlint.safe_read import Refused, exists, read_bytes

        if not exists(path):
            raise BaselineError(f"baseline file not found: {path}")
        try:  # a regular file within limits.max-file-mb; ValueError: an integer past 4,300 digits
            data = json.loads(read_bytes(path).decode("utf-8"))
        except (Refused, UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise BaselineError(f"cannot read baseline {path}: {str(exc)[:200]}") from None
        if not isinstance(data, dict) or data.get("netlint-baseline") != FORMAT_VERSION \
                or not isinstance(data.get("findings"), list):
            raise BaselineError(f"{path} is not a netlint baseline (version {FORMAT_VERSION})")
        base = cls(path)
        for e in data["findings"]:
            try:
                ident = (str(e["file"]), str(e["code"]), str(e["key"]))
                count = int(e.get("count", 1))
            except (KeyError, TypeError, ValueError):
                raise BaselineError(f"{path}: malformed entry {e!r}") from None
            base.entries[ident] += count
            base.messages.setdefault(ident, str(e.get("message", "")))
        return base

    def apply(self, findings: Iterable[Finding]) -> Counter:
        """Mark the findings the baseline records as suppressed; return the entries left unmatched."""
        left = Counter(self.entries)
        for f in sorted(findings, key=Finding.sort_key):
            if f.suppressed is not None or f.code == "NL000":
                continue
            ident = identity(f)
            if left[ident] > 0:
                left[ident] -= 1
                f.suppressed = f"in baseline {self.path.name}"
                f.extra["suppression"] = {"kind": "external", "justification": f"in baseline {self.path.name}"}
        return +left

    def stale(self, left: Counter, files: set[str] | None) -> int:
        """How many unmatched entries belong to files this run looked at (``None``: all)."""
        return sum(n for (file, _, _), n in left.items() if files is None or file in files)


def write(path: Path, findings: Iterable[Finding], keep_from: "Baseline | None" = None,
          replaced_files: set[str] | None = None) -> int:
    """Write the findings not suppressed inline to ``path``; return the number of entries.

    With ``replaced_files`` (a run on some files only, as pre-commit does), entries of other files are
    kept from ``keep_from`` instead of being dropped."""
    counts: Counter = Counter()
    messages: dict[tuple[str, str, str], str] = {}
    for f in findings:
        if f.code == "NL000" or (f.suppressed is not None
                                 and f.extra.get("suppression", {}).get("kind") == "inSource"):
            continue
        ident = identity(f)
        counts[ident] += 1
        messages.setdefault(ident, f.message)
    if keep_from is not None and replaced_files is not None:
        for ident, n in keep_from.entries.items():
            if ident[0] not in replaced_files:
                counts[ident] += n
                messages.setdefault(ident, keep_from.messages.get(ident, ""))
    entries = [{"file": file, "code": code, "key": key, "count": n, "message": messages.get((file, code, key), "")}
               for (file, code, key), n in sorted(counts.items())]
    doc = {"netlint-baseline": FORMAT_VERSION,
           "note": "Findings accepted as of this file; netlint check --baseline reports only new ones. "
                   "Matched by file, rule and key, not by line.",
           "findings": entries}
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return sum(counts.values())
