"""Append the job summary ($GITHUB_STEP_SUMMARY) of a netlint run: the findings per rule.

    python -I summary.py SARIF_FILE EXIT_CODE >> "$GITHUB_STEP_SUMMARY"

Counts come from the run's SARIF (suppressed and baselined findings are not in it), so the summary
agrees with code scanning. Markdown as GitHub renders job summaries (a GitHub-flavoured table).
"""

from __future__ import annotations

import json
import sys
from collections import Counter

ORDER = {"error": 0, "warning": 1, "note": 2, "none": 3}
MEANING = {0: "no findings at or above the fail level", 1: "findings at or above the fail level",
           2: "usage or configuration error"}


def _cell(text: str) -> str:
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"


def render(log: dict | None, exit_code: int) -> str:
    head = f"### netlint\n\nnetlint exited {exit_code}: {MEANING.get(exit_code, 'internal error')}.\n"
    if log is None:
        return head + "\nNo SARIF was written, so there is nothing to count: see the step's log.\n"
    counts: Counter = Counter()
    files: set[str] = set()
    names: dict[str, str] = {}
    for run in log.get("runs", []):
        for rule in run.get("tool", {}).get("driver", {}).get("rules", []):
            names[rule.get("id", "")] = rule.get("name", "")
        for res in run.get("results", []):
            counts[(res.get("ruleId", "?"), res.get("level", "warning"))] += 1
            for loc in res.get("locations", [])[:1]:
                files.add(loc.get("physicalLocation", {}).get("artifactLocation", {}).get("uri", ""))
    total = sum(counts.values())
    if not total:
        return head + "\nNo findings.\n"
    rows = sorted(counts.items(), key=lambda kv: (ORDER.get(kv[0][1], 9), -kv[1], kv[0][0]))
    rules = len({code for code, _ in counts})
    lines = [head, f"{_plural(total, 'finding')} in {_plural(len(files), 'file')}, {_plural(rules, 'rule')}:\n",
             "| Rule | Name | Level | Findings |", "|---|---|---|---:|"]
    lines += [f"| {_cell(code)} | {_cell(names.get(code, ''))} | {level} | {n} |" for (code, level), n in rows]
    lines.append(f"| **Total** | | | **{total}** |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        sys.stderr.write("usage: summary.py SARIF_FILE EXIT_CODE\n")
        return 2
    try:
        with open(argv[1], encoding="utf-8") as fh:
            log = json.load(fh)
    except (OSError, ValueError):
        log = None
    sys.stdout.write(render(log, int(argv[2]) if argv[2].lstrip("-").isdigit() else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
