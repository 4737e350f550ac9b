"""``netlint advisories``: the known-bad releases netlint knows (netlint/data/advisories.yaml).

``--library nccl`` keeps one library; ``--version 2.18.1`` keeps the advisories that affect that
release; ``--format json`` prints the entries with their sources.
"""

from __future__ import annotations


def add_parser(sub) -> None:
    p = sub.add_parser("advisories", help="list the known-bad releases netlint reports (ADV8xx)")
    p.add_argument("--library", help="only this library (nccl, aws-ofi-nccl, ...)")
    p.add_argument("--version", help="only the advisories that affect this release")
    p.add_argument("--format", choices=("text", "json"), default="text")


def run(args) -> int:
    import json

    from netlint.advisories.data import advisories, version

    data = advisories()
    picked = list(data.advisories)
    if args.library:
        picked = [a for a in picked if a.library == args.library.lower()]
    if args.version:
        v = version(args.version)
        if v is None:
            print(f"netlint advisories: cannot read version {args.version!r}")
            return 2
        picked = [a for a in picked if a.affects(v)]
    if args.format == "json":
        print(json.dumps([{"id": a.id, "library": a.library, "affected": a.affected, "fixed": a.fixed,
                           "severity": a.severity, "symptom": a.symptom, "hardware": a.hardware,
                           "settings": [str(s) for s in a.settings], "workaround": [str(s) for s in a.workaround],
                           "sources": list(a.sources)} for a in picked], indent=2))
        return 0
    for a in picked:
        print(f"{a.id}  {a.library} {a.affected}  fixed: {a.fixed or 'not yet'}  [{a.severity}]")
        print(f"    {a.symptom}")
        if a.settings:
            print(f"    triggered by: {', '.join(str(s) for s in a.settings)}")
        if a.hardware:
            print(f"    hardware: {a.hardware}")
        if a.workaround:
            print(f"    workaround: {' or '.join(str(s) for s in a.workaround)}")
        for s in a.sources:
            print(f"    source: {s}")
    if not picked:
        print("no advisory matches")
    return 0
