"""The language server's parts in-process: the warm store, code actions (fix all, preferred safe fixes,
where a suppression goes), hover, completion and position encoding."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from lsprotocol import types as t  # noqa: E402
from pygls.workspace.position_codec import PositionCodec  # noqa: E402

from netlint.located import Span  # noqa: E402
from netlint.server import actions, completion, hover, knowledge  # noqa: E402
from netlint.server.diagnostics import lines_of, span_range, to_diagnostic  # noqa: E402
from netlint.server.store import Store  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
UTF16 = PositionCodec(t.PositionEncodingKind.Utf16)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLES, tmp_path / "repo", ignore=shutil.ignore_patterns(".netlint_cache"))
    return tmp_path / "repo"


def real(path: Path) -> str:
    return os.path.realpath(path)


def apply_edits(text: str, edits: list[t.TextEdit]) -> str:
    """Apply LSP edits (UTF-16 positions; ASCII texts here) from the last to the first."""
    lines = lines_of(text)

    def offset(p: t.Position) -> int:
        return sum(len(line) for line in lines[:p.line]) + p.character

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
    return text


def pairs_of(linted, text: str):
    return [(f, to_diagnostic(f, lines_of(text), UTF16, lambda s: None)) for f in linted.findings]


def test_warm_store_reparses_only_the_edited_buffer(repo: Path):
    store = Store()
    env, switch = real(repo / "nccl" / "train.env"), real(repo / "switches" / "leaf01" / "config_db.json")
    text = Path(env).read_text()
    store.put(env, text)
    first = store.lint(env)
    cold = store.loaded
    assert [f.code for f in first.findings] == ["XC601"] and cold >= 4  # env, inventory, switches, NICs
    assert switch in first.reads and real(repo / "inventory.yaml") in first.reads
    store.lint(env)
    assert store.loaded == cold  # nothing changed: every file from the cache
    store.put(env, text.replace("NCCL_IB_TC=41", "NCCL_IB_TC=106"))
    assert store.lint(env).findings == []
    assert store.loaded == cold + 1  # only the buffer was read again
    assert store.dependents(switch) == [env]
    assert store.dependents(real(repo / "netlint.yaml")) == [env]  # the configuration: every open file


def test_a_context_file_changed_on_disk_is_read_again(repo: Path):
    store = Store()
    env, switch = repo / "nccl" / "train.env", repo / "switches" / "leaf01" / "config_db.json"
    store.put(real(env), env.read_text())
    assert "leaf01 does not map DSCP 10" in store.lint(real(env)).findings[0].message
    data = switch.read_text().replace('"8": "0", "26": "3"', '"8": "0", "10": "3", "26": "3"')
    switch.write_text(data)
    os.utime(switch, ns=(1, 1))  # a different mtime even on a coarse clock
    again = store.lint(real(env)).findings
    assert len(again) == 1 and "leaf01" not in again[0].message


def test_fix_all_applies_every_safe_fix_of_the_file(tmp_path: Path):
    env = tmp_path / "train.env"
    text = "NCCL_IB_TIMOUT=22\nNCCL_DEBUG=WARN\nNCCL_SOCKET_IFNAM=eth0\n"
    env.write_text(text)
    store = Store()
    store.put(real(env), text)
    linted = store.lint(real(env))
    pairs = pairs_of(linted, text)
    assert sorted((f.code, f.span.line) for f, _ in pairs) == [("NCCL301", 1), ("NCCL301", 3)]
    params = t.CodeActionParams(t.TextDocumentIdentifier(env.as_uri()), t.Range(t.Position(0, 0), t.Position(0, 0)),
                                t.CodeActionContext(diagnostics=[], only=[t.CodeActionKind.SourceFixAll]))
    (fix_all,) = actions.code_actions(env.as_uri(), linted, pairs, params, UTF16, text)
    assert fix_all.kind == "source.fixAll.netlint"
    assert apply_edits(text, fix_all.edit.changes[env.as_uri()]) == \
        "NCCL_IB_TIMEOUT=22\nNCCL_DEBUG=WARN\nNCCL_SOCKET_IFNAME=eth0\n"
    # on the first line: its safe fix, preferred, and the suppressions
    params = t.CodeActionParams(t.TextDocumentIdentifier(env.as_uri()), pairs[0][1].range,
                                t.CodeActionContext(diagnostics=[pairs[0][1]]))
    got = actions.code_actions(env.as_uri(), linted, pairs, params, UTF16, text)
    assert [(a.title, a.is_preferred) for a in got] == [
        ("rename NCCL_IB_TIMOUT to NCCL_IB_TIMEOUT", True), ("Suppress NCCL301 on this line", None),
        ("Suppress NCCL301 in this file", None), ("netlint: fix all safe fixes in file", None)]
    suppressed = apply_edits(text, got[1].edit.changes[env.as_uri()])
    assert suppressed.splitlines()[:2] == ["# netlint: disable=NCCL301 -- TODO: say why", "NCCL_IB_TIMOUT=22"]
    store.put(real(env), suppressed)
    assert [(f.code, f.span.line, bool(f.suppressed)) for f in store.lint(real(env)).findings] == \
        [("NCCL301", 2, True), ("NCCL301", 4, False)]  # suppressed (not published), the other one stays


def test_no_line_suppression_inside_a_continued_shell_command_nor_in_json(tmp_path: Path):
    from netlint.findings import Finding

    script = "torchrun pretrain_gpt.py \\\n    --tensor-model-parallel-size 16 \\\n    --bf16\n"
    f = Finding("JOB401", "m", Span("run.sh", 2, 5, 2, 35, 30, 60))
    diag = to_diagnostic(f, lines_of(script), UTF16, lambda s: None)
    titles = [a.title for a in actions.suppress_actions("file:///x/run.sh", "run.sh", script, f, diag, UTF16)]
    assert titles == ["Suppress JOB401 in this file"]
    shebang = "#!/bin/bash\n" + script
    whole = actions.suppress_actions("file:///x/run.sh", "run.sh", shebang, f, diag, UTF16)[-1]
    assert whole.title == "Suppress JOB401 in this file"
    assert whole.edit.changes["file:///x/run.sh"][0].range.start == t.Position(1, 0)  # below the #! line
    assert actions.suppress_actions("file:///x/c.json", "c.json", "{}", f, diag, UTF16) == []


def test_range_in_utf16_units():
    line = "X=\U0001F680 é NCCL_DEBUG=INFO\n"  # a rocket takes two UTF-16 units, é one
    col = line.index("INFO") + 1
    rng = span_range(Span("a.env", 1, col, 1, col + 4), [line], UTF16)
    assert (rng.start.character, rng.end.character) == (col, col + 4)  # one more than characters
    utf32 = PositionCodec(t.PositionEncodingKind.Utf32)
    rng = span_range(Span("a.env", 1, col, 1, col + 4), [line], utf32)
    assert (rng.start.character, rng.end.character) == (col - 1, col + 3)


def test_hover_registries():
    assert "0..255" in knowledge.describe("NCCL_IB_TC")
    assert "args.tensor_model_parallel_size" in knowledge.describe("--tensor-model-parallel-size")
    assert "Maps DSCP (0-63) to Traffic Class (0-15)" in knowledge.describe("DSCP_TO_TC_MAP")
    assert "DSCP_TO_TC_MAP" in knowledge.describe("dscp_to_tc_map")
    assert "ecn_all" in knowledge.describe("ecn")
    assert "EFA" in knowledge.describe("FI_EFA_USE_DEVICE_RDMA")
    assert knowledge.describe("--not-a-megatron-flag") is None and knowledge.describe("HOME") is None
    h = hover.hover([], "    --tensor-model-parallel-size 4 \\", t.Position(0, 10))
    assert "Megatron-LM argument" in h.contents.value
    assert hover.hover([], "plain words", t.Position(0, 2)) is None


def test_hover_on_a_finding_shows_the_rule_docs():
    from netlint.findings import Finding

    f = Finding("XC601", "NCCL_IB_TC=41 marks DSCP 10", Span("a.env", 1, 12, 1, 14))
    diag = to_diagnostic(f, ["NCCL_IB_TC=41\n"], UTF16, lambda s: None)
    h = hover.hover([(f, diag)], "NCCL_IB_TC=41", t.Position(0, 12))
    assert h.contents.value.startswith("**XC601 ")
    assert "NCCL_IB_TC=41 marks DSCP 10" in h.contents.value


def labels(items) -> list[str]:
    return [i.label for i in items]


def test_completion_of_nccl_names_values_and_megatron_flags():
    names = completion.complete("a.env", "", "NCCL_IB_TI", 0)
    assert labels(names) == ["NCCL_IB_TIMEOUT"]
    assert names[0].text_edit.range == t.Range(t.Position(0, 0), t.Position(0, 10))
    values = completion.complete("a.env", "", "NCCL_DEBUG=I", 3)
    assert {"WARN", "INFO", "TRACE"} <= set(labels(values))
    assert values[0].text_edit.range == t.Range(t.Position(3, 11), t.Position(3, 12))
    assert labels(completion.complete("a.sh", "", 'export NCCL_CROSS_NIC="', 0)) == ["0", "1", "2"]
    flags = completion.complete("run.sh", "", "    --tensor-model-p", 1)
    assert "--tensor-model-parallel-size" in labels(flags)
    assert all(f.startswith("--tensor-model-p") for f in labels(flags))
    assert completion.complete("a.env", "", "--tensor-model-p", 0) == []  # flags only in scripts
    assert completion.complete("a.env", "", "HOME=", 0) == []


def test_a_burst_of_edits_is_linted_once_and_a_code_action_sees_the_last_text(tmp_path: Path):
    import asyncio
    from types import SimpleNamespace

    from netlint.server.protocol import Session

    env = tmp_path / "a.env"
    env.write_text("NCCL_DEBUG=WARN\n")
    docs = {env.as_uri(): SimpleNamespace(source="NCCL_DEBUG=WARN\n")}
    server = SimpleNamespace(workspace=SimpleNamespace(get_text_document=lambda uri: docs[uri]))
    session = Session(server)
    published: list[str] = []
    session.publish = lambda uri: published.append(docs[uri].source)
    path = real(env)
    session.store.put(path, env.read_text())

    async def fast():  # a file whose lint is fast is linted at each edit
        docs[env.as_uri()].source = "NCCL_DEBUG=WARN\n# fast\n"
        session.changed(env.as_uri())
        assert published == ["NCCL_DEBUG=WARN\n# fast\n"] and session.pending == {}

    asyncio.run(fast())
    published.clear()
    session.cost[env.as_uri()] = 1.0  # as if its last lint took a second (a switch of a large repo)

    async def burst():
        for n in range(5):  # no await between the edits: the loop cannot run a timer in between
            docs[env.as_uri()].source = f"NCCL_DEBUG=WARN\n# {n}\n"
            session.changed(env.as_uri())
        assert published == [] and env.as_uri() in session.pending
        await asyncio.sleep(0.5)

    asyncio.run(burst())
    assert published == ["NCCL_DEBUG=WARN\n# 4\n"] and session.pending == {}

    async def then_action():
        docs[env.as_uri()].source = "NCCL_DEBUG=INFO\n"
        session.changed(env.as_uri())
        session.settle(env.as_uri())  # what codeAction and hover do first
        assert published[-1] == "NCCL_DEBUG=INFO\n" and session.pending == {}

    session.cost[env.as_uri()] = 1.0
    asyncio.run(then_action())
    assert len(published) == 2
