"""Rule docs are user docs: they cite public sources, never the team's research notes."""

from __future__ import annotations

import re

import pytest

from netlint.rules.base import load_rules

INTERNAL = re.compile(r"research/|\.\./shared|\b(jobs|switch-qos|nccl|modeling|linter-anchors)\.md\b")
# repo@commit, a URL, a standard, a paper, a man page section or a release tag.
PUBLIC = re.compile(r"@[0-9a-f]{7,40}\b|https?://|\bRFC ?\d+|IEEE 802|arXiv:|\w\(\d\)|Reference Manual"
                    r"|\bv\d+\.\d+\.\d+-\d|[Uu]ser [Gg]uide")
# NL0xx are netlint's own diagnostics (load/parse/config problems): no outside fact to cite.
FACT_FAMILIES = ("JOB", "FAB", "NCCL", "QOS", "XC", "NIC", "RUN")


def _rules():
    return sorted(load_rules().items())


@pytest.mark.parametrize("code,cls", _rules(), ids=[c for c, _ in _rules()])
def test_docs_do_not_cite_internal_notes(code, cls):
    hit = INTERNAL.search(cls.docs())
    assert hit is None, f"{code} docs cite {hit.group(0)!r}"


@pytest.mark.parametrize("code,cls", [(c, r) for c, r in _rules() if r.family() in FACT_FAMILIES],
                         ids=[c for c, r in _rules() if r.family() in FACT_FAMILIES])
def test_docs_name_a_public_source(code, cls):
    docs = cls.docs()
    assert "Source" in docs, code
    assert PUBLIC.search(docs[docs.index("Source"):]), f"{code}: its Source names no public source"


def test_the_patterns_can_fail():
    assert INTERNAL.search("**Source**: research/jobs.md §1d #2")
    assert not PUBLIC.search("Source: research notes §3b")
    assert PUBLIC.search("Source: NVIDIA/Megatron-LM@d98e8a64 megatron/training/arguments.py L1024")
