"""``netlint rules``: every rule with its code, name, default severity and summary."""

from __future__ import annotations


def add_parser(sub) -> None:
    p = sub.add_parser("rules", help="list every rule")
    p.add_argument("--format", choices=("text", "json"), default="text")


def run(args) -> int:
    import json

    from netlint.rules.base import load_rules

    rules = load_rules()
    if args.format == "json":
        print(json.dumps([{"code": r.code, "name": r.name, "severity": str(r.severity),
                           "summary": r.summary} for r in rules.values()], indent=2))
        return 0
    for r in rules.values():
        print(f"{r.code:8} {r.name:36} {str(r.severity):8} {r.summary}")
    return 0
