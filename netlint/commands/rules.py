"""``netlint rules``: every rule with its code, name, default severity and summary."""

from __future__ import annotations


def add_parser(sub) -> None:
    p = sub.add_parser("rules", help="list every rule")
    p.add_argument("--format", choices=("text", "json"), default="text")


def run(args) -> int:
    import json

    from netlint.rules.base import load_rules

    from netlint.policy.catalog import enabled, name

    rules = load_rules()
    policies = _policies(enabled)  # the policies the config enables, after the built-in rules
    if args.format == "json":
        print(json.dumps([{"code": r.code, "name": r.name, "severity": str(r.severity),
                           "summary": r.summary} for r in rules.values()]
                         + [{"code": p["code"], "name": name(p), "severity": p["severity"], "summary": p["summary"],
                             "policy": p["source"], "tags": p["tags"]} for p in policies], indent=2))
        return 0
    for r in rules.values():
        print(f"{r.code:8} {r.name:36} {str(r.severity):8} {r.summary}")
    for p in policies:
        print(f"{p['code']:8} {name(p)[:36]:36} {p['severity']:8} {p['summary']} (policy: {p['source']})")
    return 0


def _policies(enabled) -> list[dict]:
    try:
        return enabled()
    except Exception:  # an unreadable config or policy: `netlint check` reports it, located
        return []
