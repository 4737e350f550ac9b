"""A Word's span and origin are built when first read (issue 14 point 2); they, and ``raw``, equal
the hulls of its pieces' spans as computed eagerly before, for every word of varied scripts."""

from __future__ import annotations

import textwrap

from netlint.located import Span
from netlint.shell import parse_text
from netlint.shell.model import _SPAN, NOSPAN, FileText, Seg, Word, _hull

OTHER = FileText("other.env", "IFACE=ens1np0\n")
ENV = {"IFACE": Word([Seg("ens1np0", OTHER, 6, 13)]), "SIZE": "16"}    # values written in another file

SCRIPTS = {
    "launch.sh": """
        #!/bin/bash
        #SBATCH --nodes=4
        TP=8; PP="2"
        NAME=gpt-$TP-${PP}x
        ARGS=(--tensor-model-parallel-size $TP --pipeline-model-parallel-size "$PP" --name "$NAME")
        ARGS+=(--lr 1e-4)
        FLAGS="--bf16 --seq-length 4096"
        export NCCL_IB_HCA=mlx5_0,mlx5_1 NCCL_DEBUG=${NCCL_DEBUG:-WARN}
        OUT=$(date +%s)/run
        cat > nccl.conf <<EOF
        NCCL_IB_TC=106
        NCCL_SOCKET_IFNAME=$IFACE
        EOF
        NCCL_ALGO=Ring torchrun --nproc_per_node 8 pretrain_gpt.py ${ARGS[@]} $FLAGS --out "$OUT"/x \\
            --data-path /data/a_${TP}_b
        bash -c "export NCCL_PROTO=Simple; python train.py --x=$TP"
        """,
    "env.sh": """
        export NCCL_IB_GID_INDEX=3
        if [ -n "$X" ]; then export NCCL_NET_GDR_LEVEL=PHB; else export NCCL_NET_GDR_LEVEL=SYS; fi
        for h in a b; do echo "$h" >> hosts; done
        mpirun -x NCCL_DEBUG=INFO -x LD_LIBRARY_PATH -np 16 ./app --size=${SIZE:-8}M
        """,
}


def _words(script):
    for c in script.commands:
        yield from c.argv
        yield from (a.value for a in c.env.values())
        yield from c.environment.values()
        yield from (w for _, w in c.redirects)
    for a in script.assignments:
        yield a.value
        yield from a.elements or ()
    for h in script.heredocs:
        yield h.body
    for v in script.variables.values():
        yield from (v if isinstance(v, list) else [v])
    yield from script.sources


def _eager(word: Word) -> tuple[Span, Span, str]:
    """What Word.__init__ computed before: both hulls at once, raw from the span's offsets."""
    span = _hull([p.site_span() for p in word.parts]) or NOSPAN
    origin = _hull([p.origin_span() for p in word.parts]) or span
    ft = next((p.ft for p in word.parts if p.ft is not None and p.site is None), None)
    raw = ""
    if ft is not None and span.file == ft.path and 0 <= span.start <= span.end:
        raw = ft.text[span.start:span.end]
    return span, origin, raw


def test_lazy_word_spans_equal_the_eager_hulls():
    checked = other = 0
    for path, text in SCRIPTS.items():
        script = parse_text(path, textwrap.dedent(text).lstrip("\n"), env=ENV)
        for word in _words(script):
            # the evaluator may give a word another span afterwards (the quoted token): rebuild it
            # from its pieces, and from the pieces of slices, as Word.__init__ sees them
            for parts in [word.parts] + [word.slice(i, i + 2).parts for i in range(0, len(word.text), 3)]:
                if not any(p.ft is not None or p.site is not None for p in parts):
                    continue    # no piece located: the fallback span, as before
                w = Word(list(parts))
                span, origin, raw = _eager(w)
                assert w.raw == raw, (path, w.text)            # raw from offsets: spans not built yet
                assert _SPAN.__get__(w) is None and w._origin is None
                assert (w.span, w.origin) == (span, origin), (path, w.text)
                assert _SPAN.__get__(w) is w.span and w._origin is w.origin      # built once
                checked += 1
                other += origin.file != span.file
    assert checked > 100 and other > 0




def test_a_word_without_located_pieces_keeps_its_fallback():
    fallback = Span("job.sh", 3, 4, 3, 9, 20, 25)
    w = Word([], fallback)
    assert w.span is fallback and w.origin is fallback and w.raw == ""
    assert Word([]).span is NOSPAN


def test_a_span_given_later_replaces_the_hull_and_travels_in_a_pickle():
    import copy
    import pickle

    script = parse_text("job.sh", "TP=8\ntorchrun x.py --tp $TP\n")
    word = script.commands[-1].argv[-1]
    assert (word.value, word.origin.line, word.origin.col) == ("8", 1, 4)
    given = Span("job.sh", 9, 1, 9, 2, 0, 1)
    word.span = given
    assert word.span is given and word.origin.line == 1
    for back in (pickle.loads(pickle.dumps(word)), copy.copy(word)):
        assert (back.value, back.span, back.origin, back.raw) == (word.value, given, word.origin, word.raw)
    unread = script.commands[-1].argv[-2]                     # --tp, its span never read yet
    back = pickle.loads(pickle.dumps(unread))
    assert (back.span.line, back.span.col, back.raw) == (2, 15, "--tp") and back.span == unread.span
