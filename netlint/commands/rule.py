"""``netlint rule CODE``: a rule's full docs (what, why, examples, fix, sources)."""

from __future__ import annotations

import sys


def add_parser(sub) -> None:
    p = sub.add_parser("rule", help="explain one rule")
    p.add_argument("code", help="rule code, e.g. QOS101")


def run(args) -> int:
    from netlint.rules.base import get_rule

    rule = get_rule(args.code)
    if rule is None:
        from netlint.policy.catalog import docs_text, enabled

        policy = next((p for p in _policies(enabled) if p["code"] == args.code.upper()), None)
        if policy is not None:  # a policy the config enables (pack or file)
            print(docs_text(policy))
            return 0
        from netlint.codes import suggestion
        from netlint.rules.base import load_rules

        known = (*load_rules(), *(p["code"] for p in _policies(enabled)))
        hint = suggestion(args.code, known)
        # `rule` takes a whole code: a family (QOS for QSO) is no answer here
        tail = f"; did you mean '{hint}'?" if hint in known else " (see `netlint rules`)"
        sys.stderr.write(f"netlint: unknown rule code {args.code!r}{tail}\n")
        return 2
    print(f"# {rule.code} {rule.name}\n")
    print(f"Default severity: {rule.severity}. {rule.summary}.\n")
    print(rule.docs())
    uri = rule.help_uri(_docs_url())
    if uri:  # only where the user publishes the pages (docs-url); netlint has no web site
        print(f"\nDocs: {uri}")
    return 0


def _policies(enabled) -> list[dict]:
    """The enabled policies; none when the config has policies netlint cannot load at all."""
    try:
        return enabled()
    except Exception:  # an unreadable config or policy: `netlint check` reports it, located
        return []


def _docs_url() -> str | None:
    from pathlib import Path

    from netlint.config import load_config

    config, problems = load_config(None, Path.cwd())
    return None if problems else config.settings.docs_url
