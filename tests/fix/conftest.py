from __future__ import annotations

import pytest


@pytest.fixture
def fix_rules():
    """Install synthetic rules for one test: ``fix_rules.append(maker)``; each maker(ws) yields
    findings. Removed from the rule registry afterwards."""
    from netlint.rules.base import REGISTRY, Rule

    makers: list = []

    class SyntheticFixes(Rule):
        """Test-only rule: findings and fixes come from the test.

        Source: tests/fix/helpers.py
        """

        code = "ZZ900"
        name = "synthetic-fixes"
        summary = "synthetic findings with fixes, for the fixer's tests"

        def check(self, ws):
            for make in makers:
                yield from make(ws)

    try:
        yield makers
    finally:
        REGISTRY.pop("ZZ900", None)
