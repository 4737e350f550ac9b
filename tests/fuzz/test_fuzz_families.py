"""Fuzz every input family (structure-aware strategies in families.py): linting never raises, never
reports NL000, and every output format is complete (fuzz_harness.py). Deterministic in CI
(``derandomize``); ``NETLINT_FUZZ_EXAMPLES=100000`` runs a long, random campaign."""

from __future__ import annotations

import pytest

pytest.importorskip("hypothesis")  # the dev extra installs it

from hypothesis import given  # noqa: E402

from families import FAMILIES, with_inventory  # noqa: E402
from fuzz_harness import FUZZ, lint_repo  # noqa: E402


def _case(strategy, linted: list):
    @FUZZ
    @given(files=strategy)
    def check(files):
        linted.append(lint_repo(files) is not None)  # lint_repo asserts the properties of each report

    return check


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_linting_a_mutated_family_never_fails(family):
    strategy = FAMILIES[family]
    if family not in ("inventory", "policies"):
        strategy = with_inventory(strategy)
    linted: list = []
    _case(strategy, linted)()
    assert linted and all(linted)  # the strategy drew examples, and each was linted to a report
