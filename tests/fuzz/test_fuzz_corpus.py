"""Fuzz the real files of ../shared/corpus (switch configs, NCCL environments, launch scripts and job
configs from public repositories): each example is one corpus file, beside its folder's other files,
with its numbers replaced by hostile ones, a line doubled or dropped, or a hostile token inserted."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("hypothesis")  # the dev extra installs it

from hypothesis import given, strategies as st  # noqa: E402

from fuzz_harness import FUZZ, lint_repo  # noqa: E402
from strategies import HOSTILE  # noqa: E402

NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")


def _corpus(shared) -> list:
    root = shared / "corpus"
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.name != "PROVENANCE.md"
                   and p.stat().st_size < 200_000)
    if not files:
        pytest.skip("no corpus files in ../shared/corpus")
    return [(p.relative_to(root).as_posix(), p.read_text(encoding="utf-8", errors="replace")) for p in files]


def _damage(rng, text: str) -> str:
    numbers = list(NUMBER.finditer(text))
    out = text
    for _ in range(rng.choice([1, 1, 2, 4])):
        roll = rng.random()
        if roll < 0.6 and numbers:
            m = rng.choice(numbers)
            out = out[:m.start()] + rng.choice(HOSTILE) + out[m.end():] if m.end() <= len(out) else out
        elif roll < 0.8:
            lines = out.splitlines(keepends=True)
            if lines:
                i = rng.randrange(len(lines))
                lines[i:i + 1] = [] if rng.random() < 0.5 else [lines[i]] * rng.randint(2, 20)
                out = "".join(lines)
        else:
            i = rng.randint(0, len(out))
            out = out[:i] + rng.choice(HOSTILE + ["\n", "&a ", "*a", "${", "$(", "<<EOF\n", "'", '"']) + out[i:]
    return out


def test_linting_a_damaged_corpus_file_never_fails(shared):
    corpus = _corpus(shared)

    @FUZZ
    @given(pick=st.integers(0, len(corpus) - 1), rng=st.randoms(use_true_random=False))
    def check(pick, rng):
        rel, text = corpus[pick]
        folder = rel.rsplit("/", 1)[0]
        files = {r.rsplit("/", 1)[-1]: t for r, t in corpus if r.rsplit("/", 1)[0] == folder and r != rel
                 and rng.random() < 0.3}  # some neighbours: cross-file rules join them
        files[rel.rsplit("/", 1)[-1]] = _damage(rng, text)
        linted.append(lint_repo(files) is not None)  # lint_repo asserts the properties of each report

    linted: list = []
    check()
    assert linted and all(linted)  # examples were drawn, and each was linted to a report
