"""netlint.nearest answers what the plain scans it replaced answered (issue 14 point 2: memoised
did-you-mean with a prefilter), for every entry of each big table with a one-letter typo."""

from __future__ import annotations

import difflib

import pytest

from netlint import nearest
from netlint.jobs import ds_keys, megatron
from netlint.nccl import registry as reg_mod
from netlint.nccl import stacks


def typo(word: str, i: int) -> str:
    """One-letter typo of ``word``, the kind (drop, change, add, swap) and place varying with ``i``."""
    kind, at = i % 4, 1 + (i * 7) % max(1, len(word) - 2)
    if kind == 0:
        return word[:at] + word[at + 1:]
    if kind == 1:
        sub = "x" if word[at:at + 1].lower() != "x" else "q"
        return word[:at] + (sub.upper() if word.isupper() else sub) + word[at + 1:]
    if kind == 2:
        return word[:at] + ("E" if word.isupper() else "e") + word[at:]
    return word[:at] + word[at + 1:at + 2] + word[at] + word[at + 2:] if at + 1 < len(word) else word + "s"


def _difflib_hit(word, table, cutoff):
    hits = difflib.get_close_matches(word, table, n=1, cutoff=cutoff)
    return hits[0] if hits else None


def _scan_nearest(word, table, budget):
    """The former loop of registry.closest / stacks.suggest: smallest distance, then smallest name."""
    best, best_d = None, budget + 1
    for cand in table:
        d = nearest.distance(word, cand, budget)
        if d < best_d or (d == best_d and best is not None and cand < best):
            best, best_d = cand, d
    return best


def _megatron_table(which: str) -> tuple[str, ...]:
    if which == "all":
        return tuple(megatron.table())
    parser = megatron.parser_of(megatron.entries()[which])      # what JOB401 offers for that script
    return tuple(f for f in parser if f.startswith("--"))


@pytest.mark.parametrize("which", ["all", "pretrain_gpt.py"])
def test_megatron_suggestions_equal_difflib(which):
    table = _megatron_table(which)
    assert len(table) > 500
    words = [typo(f, i) for i, f in enumerate(table)] + ["--", "", "--zzzz", "--num-layer", "--NUM-LAYERS"]
    nearest.close_match.cache_clear()
    want = [_difflib_hit(w, list(table), 0.75) for w in words]
    assert [megatron.suggest(w, list(table)) for w in words] == want
    assert [megatron.suggest(w, list(table)) for w in words] == want       # memoised answers too
    assert sum(h is not None for h in want) > 0.9 * len(table)              # the typos are near misses
    assert nearest.close_match.cache_info().hits >= len(set(words))


def test_deepspeed_key_suggestions_equal_difflib():
    for known in (ds_keys.TOP, ds_keys.ZERO, ds_keys.OFFLOAD_PARAM, ds_keys.OFFLOAD_OPTIMIZER,
                  ds_keys.FP16, ds_keys.BF16):
        table = tuple(sorted(known))
        for i, key in enumerate(table):
            word = typo(key, i)
            assert nearest.close_match(word, table, 0.75) == _difflib_hit(word, list(table), 0.75), word


def test_nccl_registry_suggestions_equal_the_scan():
    reg = reg_mod.registry()
    table = reg._suggestable
    assert len(table) > 300
    hits = 0
    for i, name in enumerate(table):
        word = typo(name, i)
        budget = reg_mod._budget(word)
        want = _scan_nearest(word, table, budget)
        assert nearest.by_distance(word, tuple(table), budget, nearest.distance) == want, word
        hits += want is not None
    assert hits > 0.9 * len(table)
    assert reg.suggest("NCCL_IB_HCAA") == "NCCL_IB_HCA"


def test_stack_suggestions_equal_the_scan():
    table = stacks._candidates()
    assert len(table) > 500
    for i, name in enumerate(table):
        word = typo(name, i).upper()
        core = len(word) - stacks._prefix_len(word)
        budget = 1 if core <= 5 else 2 if core <= 14 else 3
        assert nearest.by_distance(word, table, budget, nearest.distance) == _scan_nearest(word, table, budget), word


def test_bounds_keep_entries_equal_to_the_word():
    table = ("ab", "ba", "abc", "", "a")
    assert nearest.by_distance("ab", table, 1, nearest.distance) == "ab"
    assert nearest.by_distance("", table, 1, nearest.distance) == ""
    assert nearest.close_match("", table, 0.75) == _difflib_hit("", list(table), 0.75)
    assert nearest.close_match("ba", table, 0.6) == _difflib_hit("ba", list(table), 0.6)
