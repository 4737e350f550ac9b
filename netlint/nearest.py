"""Did-you-mean over big tables (Megatron's ~900 flags, NCCL's and the network stacks' ~1,000 names),
memoised and prefiltered by length and characters.

A repo repeats its typos (copied launch scripts), and most of a table cannot be close to a given word
by length alone, so each answer is computed once per (word, table) and only over the lengths that can
still match. The prefilters drop only candidates the full comparison would reject, so the answers are
those of the plain scans: :func:`close_match` is ``difflib.get_close_matches(word, table, n=1,
cutoff)``, :func:`by_distance` the first minimum of an edit-distance scan over a sorted table.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable


@lru_cache(maxsize=32)
def _by_length(table: tuple[str, ...]) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """(length, the table's entries of that length in table order), by length."""
    groups: dict[int, list[str]] = {}
    for entry in table:
        groups.setdefault(len(entry), []).append(entry)
    return tuple(sorted((n, tuple(g)) for n, g in groups.items()))


def _mask(word: str) -> int:
    """A bit per character, folded to 7 bits: characters that share a bit only loosen the bound."""
    m = 0
    for c in word:
        m |= 1 << (ord(c) & 127)
    return m


def _counts(word: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in word:
        out[c] = out.get(c, 0) + 1
    return out


def _common(counts: tuple[tuple[str, int], ...], other: dict[str, int]) -> int:
    """Characters two strings have in common, counted (difflib's ``quick_ratio`` numerator)."""
    common = 0
    for c, n in counts:
        k = other.get(c)
        if k:
            common += n if n < k else k
    return common


@lru_cache(maxsize=32)
def _profiled(table: tuple[str, ...]) -> tuple[tuple[int, tuple[tuple[str, int, tuple], ...]], ...]:
    """``_by_length`` with each entry's character mask and counts."""
    return tuple((n, tuple((e, _mask(e), tuple(_counts(e).items())) for e in group))
                 for n, group in _by_length(table))


@lru_cache(maxsize=4096)
def close_match(word: str, table: tuple[str, ...], cutoff: float) -> str | None:
    """``difflib.get_close_matches(word, table, n=1, cutoff=cutoff)``'s hit, or None.

    difflib keeps an entry when three scores reach ``cutoff``: ``real_quick_ratio`` (lengths only),
    ``quick_ratio`` (characters in common, counted) and ``ratio`` (each at most the one before), and
    returns the entry with the highest (``ratio``, entry). The first two are computed here the same
    way from counts made once per table (lengths once per length; before counting, two looser bounds
    from the characters one string lacks); ``ratio``, difflib's own, only for entries in falling
    (``quick_ratio``, entry) order until none left can beat the best."""
    from difflib import SequenceMatcher

    la, wm, wc = len(word), _mask(word), _counts(word)
    drop = dict.fromkeys(map(ord, wc))      # str.translate deletes the word's characters
    kept: list[tuple[float, str]] = []
    for lb, group in _profiled(table):
        total = la + lb
        if not total:
            kept.extend((1.0, e) for e, _, _ in group)
            continue
        if 2.0 * min(la, lb) / total < cutoff:
            continue
        for entry, em, counts in group:
            if 2.0 * min(la - (wm & ~em).bit_count(), lb - (em & ~wm).bit_count()) / total < cutoff:
                continue
            if 2.0 * (lb - len(entry.translate(drop))) / total < cutoff:
                continue
            quick = 2.0 * _common(counts, wc) / total
            if quick >= cutoff:
                kept.append((quick, entry))
    kept.sort(reverse=True)
    matcher = SequenceMatcher()
    matcher.set_seq2(word)
    best: tuple[float, str] | None = None
    for quick, entry in kept:
        if best is not None and (quick, entry) < best:
            break       # ratio <= quick_ratio: no entry left scores above the best
        matcher.set_seq1(entry)
        score = matcher.ratio()
        if score >= cutoff and (best is None or (score, entry) > best):
            best = (score, entry)
    return best[1] if best else None


@lru_cache(maxsize=4096)
def by_distance(word: str, table: tuple[str, ...], budget: int,
                distance: Callable[[str, str, int], int]) -> str | None:
    """The entry nearest ``word`` by ``distance`` (smallest distance, then smallest entry) within
    ``budget``, or None. ``distance(a, b, limit)`` counts insertions, deletions, substitutions and
    swaps of neighbours: each adds or removes at most one character of each string, so it is at least
    the length difference, the number of distinct characters either string lacks, and the longer
    length less the characters in common; entries whose bounds pass ``budget`` are not compared."""
    la, wm, wc = len(word), _mask(word), _counts(word)
    best, best_d = None, budget + 1
    for lb, group in _profiled(table):
        if abs(la - lb) > budget:
            continue
        longer = max(la, lb)
        for entry, em, counts in group:
            if (wm & ~em).bit_count() > budget or (em & ~wm).bit_count() > budget:
                continue
            if longer - _common(counts, wc) > budget:
                continue
            d = distance(word, entry, budget)
            if d < best_d or (d == best_d and best is not None and entry < best):
                best, best_d = entry, d
    return best


def distance(a: str, b: str, limit: int = 99) -> int:
    """Optimal-string-alignment edit distance (insert, delete, substitute, swap neighbours)."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        best = cur[0]
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
            best = min(best, cur[j])
        if best > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[len(b)]
