"""The fixer on synthetic findings: safety, conflicts, formats, the loop, the CLI flags."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from netlint.cli import main
from netlint.engine import Options, lint
from netlint.fix import run_fixes
from tests.conftest import write_repo
from tests.fix.fixtools import fix_rules, replace_text, set_value  # noqa: F401 (fixture)


def opts(*paths: Path) -> Options:
    # only the synthetic rules: real rules (NCCL301 knows NCCL_IB_TIMOUT is misspelled) stay out
    return Options(paths=list(paths), select=["ZZ"], jobs=1)


def test_text_fix_on_env_file(tmp_path, fix_rules):
    write_repo(tmp_path, {"a.env": "NCCL_IB_TIMOUT=22\nNCCL_DEBUG=INFO\n"})
    fix_rules.append(replace_text(".env", "NCCL_IB_TIMOUT", "NCCL_IB_TIMEOUT"))
    run = run_fixes(opts(tmp_path / "a.env"))
    assert [a.finding.code for a in run.applied] == ["ZZ901"]
    assert (tmp_path / "a.env").read_text() == "NCCL_IB_TIMEOUT=22\nNCCL_DEBUG=INFO\n"
    assert run.converged and run.passes == 1
    assert not [f for f in run.report.findings if f.code == "ZZ901"]


def test_unsafe_fix_needs_unsafe(tmp_path, fix_rules):
    write_repo(tmp_path, {"run.sh": "export TP=16\n"})
    fix_rules.append(replace_text(".sh", "TP=16", "TP=8", safe=False))
    run = run_fixes(opts(tmp_path / "run.sh"))
    assert not run.applied and run.unsafe_remaining() == 1
    assert (tmp_path / "run.sh").read_text() == "export TP=16\n"
    run = run_fixes(opts(tmp_path / "run.sh"), unsafe=True)
    assert len(run.applied) == 1 and not run.applied[0].safe
    assert (tmp_path / "run.sh").read_text() == "export TP=8\n"


def test_expected_mismatch_is_skipped(tmp_path, fix_rules):
    from netlint.findings import Edit, Finding, Fix
    from tests.fix.fixtools import span_at

    text = "A=1\nB=2\n"
    write_repo(tmp_path, {"x.env": text})

    def wrong(ws):
        span = span_at("x.env", text, 0, 3)
        yield Finding("ZZ901", "m", span, fix=Fix("d", (Edit(span, "A=9", expected="A=2"),)))

    fix_rules.append(wrong)
    run = run_fixes(opts(tmp_path / "x.env"))
    assert not run.applied and not run.changes
    assert "no longer holds 'A=2'" in run.skipped[0].reason
    assert (tmp_path / "x.env").read_text() == text


def test_edit_without_expected_text_is_refused(tmp_path, fix_rules):
    from netlint.findings import Edit, Finding, Fix
    from tests.fix.fixtools import span_at

    text = "A=1\n"
    write_repo(tmp_path, {"x.env": text})

    def blind(ws):
        span = span_at("x.env", text, 0, 3)
        yield Finding("ZZ901", "m", span, fix=Fix("d", (Edit(span, "A=9"),)))

    fix_rules.append(blind)
    run = run_fixes(opts(tmp_path / "x.env"))
    assert not run.applied and "does not carry the text" in run.skipped[0].reason


def test_file_modified_between_lint_and_fix_is_untouched_and_reported(tmp_path, fix_rules):
    write_repo(tmp_path, {"a.env": "NCCL_IB_TIMOUT=22\n", "b.env": "NCCL_IB_TIMOUT=18\n"})
    fix_rules.append(replace_text(".env", "NCCL_IB_TIMOUT", "NCCL_IB_TIMEOUT"))
    o = opts(tmp_path / "a.env", tmp_path / "b.env")
    report = lint(o)
    assert len([f for f in report.findings if f.code == "ZZ901"]) == 2
    (tmp_path / "a.env").write_text("NCCL_IB_TIMOUT=23\n")  # someone edits it meanwhile
    run = run_fixes(o, report=report)
    assert (tmp_path / "a.env").read_text() == "NCCL_IB_TIMOUT=23\n"
    assert (tmp_path / "b.env").read_text() == "NCCL_IB_TIMEOUT=18\n"
    reasons = [s.reason for s in run.skipped if s.finding.file == "a.env"]
    assert reasons and "changed since netlint read it" in reasons[0]
    assert list(run.changes) == ["b.env"]


def test_file_modified_after_fixing_before_writing_is_not_written(tmp_path, fix_rules, monkeypatch):
    write_repo(tmp_path, {"a.env": "NCCL_IB_TIMOUT=22\n"})
    fix_rules.append(replace_text(".env", "NCCL_IB_TIMOUT", "NCCL_IB_TIMEOUT"))
    import netlint.fix.write as write

    real = write.write_changes

    def racing(run, root, named):
        (tmp_path / "a.env").write_text("X=1\n")
        real(run, root, named)

    monkeypatch.setattr(write, "write_changes", racing)
    run = run_fixes(opts(tmp_path / "a.env"))
    assert (tmp_path / "a.env").read_text() == "X=1\n"
    assert run.unwritten == {"a.env": "it changed on disk while netlint was fixing it"}
    assert not run.written and not run.landed()


def test_unparsable_file_is_never_fixed(tmp_path, fix_rules):
    text = "a: [1, 2\nb: old\n"
    write_repo(tmp_path, {"bad.yaml": text})
    fix_rules.append(replace_text(".yaml", "old", "new"))
    run = run_fixes(opts(tmp_path / "bad.yaml"))
    assert not run.applied and (tmp_path / "bad.yaml").read_text() == text
    assert "does not parse" in run.skipped[0].reason


def test_fix_that_would_break_the_file_is_refused(tmp_path, fix_rules):
    text = "a: 1\nb: 2\n"
    write_repo(tmp_path, {"x.yaml": text})
    fix_rules.append(replace_text(".yaml", "b: 2", "b: [2"))
    run = run_fixes(opts(tmp_path / "x.yaml"))
    assert not run.applied and (tmp_path / "x.yaml").read_text() == text
    assert "unparsable" in run.skipped[0].reason


def test_conflicting_edits_first_wins_rest_reported(tmp_path, fix_rules):
    from netlint.findings import Edit, Finding, Fix
    from tests.fix.fixtools import span_at

    text = "NCCL_IB_TC=106\n"
    write_repo(tmp_path, {"c.env": text})

    def two(ws):
        if ws.text("c.env") != text:
            return
        s1 = span_at("c.env", text, 11, 14)
        s2 = span_at("c.env", text, 11, 15)  # same start: the report orders them by code
        yield Finding("ZZ903", "second", s2, fix=Fix("drop", (Edit(s2, "0\n", expected="106\n"),)))
        yield Finding("ZZ901", "first", s1, fix=Fix("tc 98", (Edit(s1, "98", expected="106"),)))

    fix_rules.append(two)
    report = lint(opts(tmp_path / "c.env"))
    run = run_fixes(opts(tmp_path / "c.env"), report=report, write=False)
    assert [a.finding.message for a in run.applied] == ["first"]
    assert run.changes["c.env"].after == b"NCCL_IB_TC=98\n"
    # the loser's finding disappeared after the re-lint: nothing left to report
    assert not run.skipped


def test_conflict_still_present_is_reported(tmp_path, fix_rules):
    from netlint.findings import Edit, Finding, Fix
    from tests.fix.fixtools import span_at

    def two(ws):
        text = ws.text("c.env")
        s = span_at("c.env", text, 0, 1)
        if text.startswith("A"):
            yield Finding("ZZ901", "first", s, fix=Fix("x", (Edit(s, "X", expected=text[0]),)))
        if not text.startswith("Y"):
            yield Finding("ZZ903", "second", s, fix=Fix("y", (Edit(s, "Y", expected=text[0]),)))

    write_repo(tmp_path, {"c.env": "A=1\n"})
    fix_rules.append(two)
    # one pass only: the loser of the conflict is still there at the end, so it is reported
    run = run_fixes(opts(tmp_path / "c.env"), write=False, limit=1)
    assert run.changes["c.env"].after == b"X=1\n"
    assert [s.finding.message for s in run.skipped] == ["second"]
    assert "conflicts with an earlier fix" in run.skipped[0].reason
    # with the loop, the next pass applies it on the fixed text
    run = run_fixes(opts(tmp_path / "c.env"), write=False)
    assert run.changes["c.env"].after == b"Y=1\n" and not run.skipped and run.passes == 2


def test_same_edit_from_two_findings_is_applied_once(tmp_path, fix_rules):
    write_repo(tmp_path, {"d.env": "NCCL_SOCKET_IFNAM=eth0\n"})
    fix_rules.append(replace_text(".env", "IFNAM=", "IFNAME=", code="ZZ901"))
    fix_rules.append(replace_text(".env", "IFNAM=", "IFNAME=", code="ZZ903"))
    run = run_fixes(opts(tmp_path / "d.env"))
    assert (tmp_path / "d.env").read_text() == "NCCL_SOCKET_IFNAME=eth0\n"
    assert len(run.applied) == 2 and not run.skipped


def test_loop_reaches_a_fixed_point(tmp_path, fix_rules):
    # each pass only fixes the first "aa" it sees (each occurrence its own finding); the loop must
    # finish the job
    from netlint.findings import Edit, Finding, Fix
    from tests.fix.fixtools import span_at

    def one_at_a_time(ws):
        text = ws.text("l.env")
        at = text.find("aa")
        if at >= 0:
            s = span_at("l.env", text, at, at + 2)
            yield Finding("ZZ901", "aa", s, fix=Fix("b", (Edit(s, "b", expected="aa"),)), key=f"aa@{at}")

    write_repo(tmp_path, {"l.env": "X=aaaaaa\n"})
    fix_rules.append(one_at_a_time)
    run = run_fixes(opts(tmp_path / "l.env"))
    assert (tmp_path / "l.env").read_text() == "X=bbb\n"
    assert run.converged and run.passes == 3 and run.written == ["l.env"] and not run.unwritten


def test_runaway_limit_writes_nothing_for_the_file(tmp_path, fix_rules):
    # a new finding every pass (its message counts the bytes): never settles
    from netlint.findings import Edit, Finding, Fix
    from tests.fix.fixtools import span_at

    def forever(ws):
        text = ws.text("r.env")
        s = span_at("r.env", text, len(text), len(text))
        yield Finding("ZZ901", f"more than {len(text)} bytes", s, fix=Fix("grow", (Edit(s, "#\n"),)))

    write_repo(tmp_path, {"r.env": "A=1\n", "ok.env": "NCCL_IB_TIMOUT=22\n"})
    fix_rules.append(forever)
    fix_rules.append(replace_text("ok.env", "TIMOUT", "TIMEOUT", code="ZZ903"))
    run = run_fixes(opts(tmp_path / "r.env", tmp_path / "ok.env"), limit=4)
    assert not run.converged and run.passes == 4
    assert (tmp_path / "r.env").read_text() == "A=1\n"  # before: "A=1\n" + "#\n" * 4, written
    assert (tmp_path / "ok.env").read_text() == "NCCL_IB_TIMEOUT=22\n"  # a file that settled is written
    assert "runaway" in run.notes[0]
    assert "did not settle (still changing after 4 passes)" in run.unwritten["r.env"]
    assert run.written == ["ok.env"] and [a.finding.code for a in run.landed()] == ["ZZ903"]
    # the report is the disk's: the growing finding is still there, the rename is gone
    assert [f.code for f in run.report.findings] == ["ZZ901"]


def test_fixes_that_undo_each_other_stop(tmp_path, fix_rules):
    from netlint.findings import Edit, Finding, Fix
    from tests.fix.fixtools import span_at

    def flip(ws):
        text = ws.text("f.env")
        s = span_at("f.env", text, 2, 3)
        yield Finding("ZZ901", f"flip {text[2]}", s, fix=Fix("flip", (Edit(s, "1" if text[2] == "0" else "0",
                                                                            expected=text[2]),)))

    write_repo(tmp_path, {"f.env": "A=0\n"})
    fix_rules.append(flip)
    run = run_fixes(opts(tmp_path / "f.env"))
    assert not run.converged and "undo each other" in run.notes[0]
    assert (tmp_path / "f.env").read_text() == "A=0\n" and not run.written


def test_atomic_write_keeps_mode_and_leaves_no_temp_file(tmp_path, fix_rules):
    write_repo(tmp_path, {"m.sh": "export NCCL_IB_TIMOUT=22\n"})
    os.chmod(tmp_path / "m.sh", 0o751)
    fix_rules.append(replace_text(".sh", "TIMOUT", "TIMEOUT"))
    run_fixes(opts(tmp_path / "m.sh"))
    assert stat.S_IMODE(os.stat(tmp_path / "m.sh").st_mode) == 0o751
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.sh"]


def test_bom_and_crlf_survive_a_text_fix(tmp_path, fix_rules):
    (tmp_path / "w.env").write_bytes(b"\xef\xbb\xbfA=old\r\nB=2\r\n")
    fix_rules.append(replace_text(".env", "old", "new"))
    run_fixes(opts(tmp_path / "w.env"))
    assert (tmp_path / "w.env").read_bytes() == b"\xef\xbb\xbfA=new\r\nB=2\r\n"


def test_files_outside_the_checked_paths_are_not_fixed(tmp_path, fix_rules):
    from netlint.findings import Edit, Finding, Fix
    from tests.fix.fixtools import span_at

    write_repo(tmp_path, {"a.env": "A=1\n", "b.env": "B=1\n"})

    def other(ws):
        text = "B=1\n"
        s = span_at("b.env", text, 2, 3)
        yield Finding("ZZ901", "cross", span_at("a.env", "A=1\n", 0, 1),
                      fix=Fix("x", (Edit(s, "2", expected="1"),)))

    fix_rules.append(other)
    run = run_fixes(opts(tmp_path / "a.env"))
    assert not run.changes
    assert "not among the files being checked" in run.skipped[0].reason or \
        "did not read" in run.skipped[0].reason


def test_multi_file_fix_is_all_or_nothing(tmp_path, fix_rules):
    from netlint.findings import Edit, Finding, Fix
    from tests.fix.fixtools import span_at

    write_repo(tmp_path, {"a.env": "A=1\n", "b.yaml": "b: 1\n"})

    def both(ws):
        sa = span_at("a.env", ws.text("a.env"), 2, 3)
        sb = span_at("b.yaml", ws.text("b.yaml"), 3, 4)
        if ws.text("a.env") == "A=1\n":
            # the YAML half would break its file, so the env half must not be applied either
            yield Finding("ZZ901", "both", sa, fix=Fix("x", (Edit(sa, "2", expected="1"),
                                                            Edit(sb, "[", expected="1"))))

    fix_rules.append(both)
    run = run_fixes(opts(tmp_path / "a.env", tmp_path / "b.yaml"))
    assert not run.changes and not run.applied
    assert (tmp_path / "a.env").read_text() == "A=1\n"


# -- structural edits ------------------------------------------------------------------------------

def test_json_structural_insert_is_minimal(tmp_path, fix_rules):
    text = ('{\n    "PORT_QOS_MAP": {\n        "Ethernet0": {\n            "pfc_enable": "3,4"\n'
            '        }\n    },\n    "DSCP_TO_TC_MAP": {\n        "AZURE": {\n            "0": "0",\n'
            '            "26": "3"\n        }\n    }\n}\n')
    write_repo(tmp_path, {"config_db.json": text})
    fix_rules.append(set_value("config_db.json", ("DSCP_TO_TC_MAP", "AZURE", "48"), "6"))
    fix_rules.append(set_value("config_db.json", ("PORT_QOS_MAP", "Ethernet0", "pfcwd_sw_enable"), "3,4"))
    fix_rules.append(set_value("config_db.json", ("WRED_PROFILE", "AZURE_LOSSLESS"),
                               {"ecn": "ecn_all", "wred_green_enable": "true"}))
    run = run_fixes(opts(tmp_path / "config_db.json"))
    assert len(run.applied) == 3
    assert (tmp_path / "config_db.json").read_text() == (
        '{\n    "PORT_QOS_MAP": {\n        "Ethernet0": {\n            "pfc_enable": "3,4",\n'
        '            "pfcwd_sw_enable": "3,4"\n'
        '        }\n    },\n    "DSCP_TO_TC_MAP": {\n        "AZURE": {\n            "0": "0",\n'
        '            "26": "3",\n            "48": "6"\n        }\n    },\n'
        '    "WRED_PROFILE": {\n        "AZURE_LOSSLESS": {\n            "ecn": "ecn_all",\n'
        '            "wred_green_enable": "true"\n        }\n    }\n}\n')


def test_json_structural_replace_and_compact(tmp_path, fix_rules):
    write_repo(tmp_path, {"ds_config.json": '{"train_batch_size": 1024, "gradient_accumulation_steps": 4}'})
    fix_rules.append(set_value("ds_config.json", ("train_batch_size",), 512, safe=False))
    fix_rules.append(set_value("ds_config.json", ("zero_optimization", "stage"), 1))
    run = run_fixes(opts(tmp_path / "ds_config.json"), unsafe=True)
    assert len(run.applied) == 2
    assert (tmp_path / "ds_config.json").read_text() == \
        '{"train_batch_size": 512, "gradient_accumulation_steps": 4, "zero_optimization": {"stage": 1}}'


def test_json_empty_object_and_tabs(tmp_path, fix_rules):
    write_repo(tmp_path, {"t.json": '{\n\t"A": {},\n\t"B": 1\n}\n'})
    fix_rules.append(set_value("t.json", ("A", "k"), "v"))
    run_fixes(opts(tmp_path / "t.json"))
    assert (tmp_path / "t.json").read_text() == '{\n\t"A": {\n\t\t"k": "v"\n\t},\n\t"B": 1\n}\n'


def test_yaml_structural_edit_keeps_comments_anchors_and_odd_indentation(tmp_path, fix_rules):
    text = """\
---
# switch QoS, hand-edited   (header comment)
defaults: &defaults      # shared settings
   mtu: 9216      # jumbo frames
   ecn: {min: 150000,  max: 1500000}   # flow map, odd spacing
switch:
   <<: *defaults
   name:   "leaf-01"
   pfc:
       priorities:
       - 3
       - 4   # storage
       # more priorities later

   queues:
      - id: 3
        lossless: yes   # RoCE
      - id: 0
   # DSCP map below
   dscp_to_tc:   {26: 3, 48: 6}
...
"""
    write_repo(tmp_path, {"sw.yaml": text})
    fix_rules.append(set_value("sw.yaml", ("switch", "pfc", "watchdog"), "on"))
    fix_rules.append(set_value("sw.yaml", ("switch", "queues", 0, "ecn"), True))
    run = run_fixes(opts(tmp_path / "sw.yaml"))
    assert len(run.applied) == 2, run.skipped
    out = (tmp_path / "sw.yaml").read_text()
    assert out == text.replace("       # more priorities later\n",
                               '       watchdog: "on"\n       # more priorities later\n') \
        .replace("lossless: yes   # RoCE\n", "lossless: yes   # RoCE\n        ecn: true\n")
    for line in text.splitlines():
        if "#" in line:
            assert line.split("#", 1)[1] in out


def test_yaml_edit_through_an_alias_is_refused(tmp_path, fix_rules):
    text = "base: &b\n  mtu: 9216\nleaf1: *b\n"
    write_repo(tmp_path, {"a.yaml": text})
    fix_rules.append(set_value("a.yaml", ("base", "mtu"), 4200))
    run = run_fixes(opts(tmp_path / "a.yaml"))
    assert not run.applied and (tmp_path / "a.yaml").read_text() == text
    assert "change more than the path" in run.skipped[0].reason


def test_yaml_multi_document(tmp_path, fix_rules):
    text = "kind: A\nspec: {x: 1}\n---\n# second\nkind: B\nspec:\n  x: 2\n"
    write_repo(tmp_path, {"m.yaml": text})

    from netlint.findings import Edit, Finding, Fix
    from netlint.located import parse_yaml

    def second(ws):
        docs = parse_yaml("m.yaml", ws.text("m.yaml"))
        spec = docs[1].root["spec"]
        if "y" not in spec:
            yield Finding("ZZ902", "y", spec.span,
                          fix=Fix("y", (Edit(spec.span, "", doc_path=("spec", "y"), value=3),)))

    fix_rules.append(second)
    run_fixes(opts(tmp_path / "m.yaml"))
    assert (tmp_path / "m.yaml").read_text() == text + "  y: 3\n"


def test_yaml_structural_and_text_edits_in_one_file_in_one_pass(tmp_path, fix_rules):
    text = "# c\nnccl:\n  NCCL_IB_TIMOUT: 22\n"
    write_repo(tmp_path, {"n.yaml": text})
    fix_rules.append(replace_text("n.yaml", "TIMOUT", "TIMEOUT"))
    fix_rules.append(set_value("n.yaml", ("nccl", "NCCL_IB_TC"), 106))
    run = run_fixes(opts(tmp_path / "n.yaml"))
    assert (tmp_path / "n.yaml").read_text() == "# c\nnccl:\n  NCCL_IB_TIMEOUT: 22\n  NCCL_IB_TC: 106\n"
    assert run.passes == 1 and not run.skipped


def test_one_fix_with_text_and_structural_edits_in_one_file(tmp_path, fix_rules):
    from netlint.findings import Edit, Finding, Fix
    from netlint.located import parse_json

    text = '{\n  "PORT_QOS_MAP": {\n    "Ethernet0": {"pfc_enable": "4"},\n    "Ethernet4": {}\n  }\n}\n'
    write_repo(tmp_path, {"q.json": text})

    def pfc(ws):
        t = ws.text("q.json")
        root = parse_json("q.json", t).root["PORT_QOS_MAP"]
        tok = root["Ethernet0"]["pfc_enable"]
        if tok.value == "3,4":
            return
        e4 = root["Ethernet4"]
        yield Finding("ZZ901", "pfc", tok.span, fix=Fix("pfc 3", (
            Edit(tok.span, '"3,4"', expected=t[tok.span.start:tok.span.end]),
            Edit(e4.span, "", doc_path=("PORT_QOS_MAP", "Ethernet4", "pfc_enable"), value="3,4"))))

    fix_rules.append(pfc)
    run = run_fixes(opts(tmp_path / "q.json"))
    assert len(run.applied) == 1 and run.passes == 1
    assert (tmp_path / "q.json").read_text() == (
        '{\n  "PORT_QOS_MAP": {\n    "Ethernet0": {"pfc_enable": "3,4"},\n'
        '    "Ethernet4": {\n      "pfc_enable": "3,4"\n    }\n  }\n}\n')


def test_text_edit_and_structural_edit_of_one_value_conflict(tmp_path, fix_rules):
    from netlint.findings import Edit, Finding, Fix
    from tests.fix.fixtools import span_at

    text = "a:\n  b: 1\n"
    write_repo(tmp_path, {"c.yaml": text})

    def both(ws):
        t = ws.text("c.yaml")
        if t != text:
            return
        s = span_at("c.yaml", t, 8, 9)
        yield Finding("ZZ901", "text", s, fix=Fix("t", (Edit(s, "2", expected="1"),)))
        yield Finding("ZZ902", "struct", s, fix=Fix("s", (Edit(s, "", doc_path=("a", "b"), value=3),)))

    fix_rules.append(both)
    run = run_fixes(opts(tmp_path / "c.yaml"), limit=1)
    assert [a.finding.code for a in run.applied] == ["ZZ901"]
    assert (tmp_path / "c.yaml").read_text() == "a:\n  b: 2\n"


def test_structural_edit_on_env_file_is_refused(tmp_path, fix_rules):
    write_repo(tmp_path, {"e.env": "A=1\n"})
    from netlint.findings import Edit, Finding, Fix
    from tests.fix.fixtools import span_at

    def s(ws):
        sp = span_at("e.env", "A=1\n", 0, 1)
        yield Finding("ZZ902", "x", sp, fix=Fix("x", (Edit(sp, "", doc_path=("A",), value=2),)))

    fix_rules.append(s)
    run = run_fixes(opts(tmp_path / "e.env"))
    assert not run.applied and "neither" in run.skipped[0].reason


def test_ruamel_is_imported_only_for_yaml_structural_edits(tmp_path, fix_rules):
    import subprocess
    import sys

    write_repo(tmp_path, {"a.env": "NCCL_IB_TIMOUT=1\n"})
    code = (
        "import sys\n"
        "from netlint.engine import Options\n"
        "from netlint.fix import run_fixes\n"
        f"run_fixes(Options(paths=[__import__('pathlib').Path({str(tmp_path / 'a.env')!r})], jobs=1))\n"
        "print('ruamel' in ' '.join(sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.strip() == "False"


# -- the command line ----------------------------------------------------------------------------

def test_cli_diff_writes_nothing(tmp_path, fix_rules, capsys):
    write_repo(tmp_path, {"a.env": "NCCL_IB_TIMOUT=22\n", "sw.yaml": "pfc:\n  enable: true\n"})
    fix_rules.append(replace_text(".env", "NCCL_IB_TIMOUT", "NCCL_IB_TIMEOUT"))
    fix_rules.append(set_value("sw.yaml", ("pfc", "watchdog"), True))
    files = [tmp_path / "a.env", tmp_path / "sw.yaml"]
    before = {p: (p.read_bytes(), os.stat(p).st_mtime_ns) for p in files}
    code = main(["check", "--select", "ZZ", "--diff", *map(str, files)])
    out, err = capsys.readouterr()
    assert code == 1
    assert "-NCCL_IB_TIMOUT=22\n+NCCL_IB_TIMEOUT=22\n" in out
    assert "+  watchdog: true\n" in out
    assert "2 fixes would be applied." in err
    assert {p: (p.read_bytes(), os.stat(p).st_mtime_ns) for p in files} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.env", "sw.yaml"]


def test_cli_fix_reports_counts(tmp_path, fix_rules, capsys):
    write_repo(tmp_path, {"a.env": "NCCL_IB_TIMOUT=22\nTP=16\n"})
    fix_rules.append(replace_text(".env", "NCCL_IB_TIMOUT", "NCCL_IB_TIMEOUT"))
    fix_rules.append(replace_text(".env", "TP=16", "TP=8", safe=False, code="ZZ903"))
    code = main(["check", "--select", "ZZ", "--fix", str(tmp_path / "a.env")])
    out = capsys.readouterr().out
    assert "1 fix applied; 1 more with --unsafe-fixes." in out
    assert "ZZ903" in out and "ZZ901" not in out.split("Found")[0]
    assert code == 1
    code = main(["check", "--select", "ZZ", "--fix", "--unsafe-fixes", str(tmp_path / "a.env")])
    out = capsys.readouterr().out
    assert "1 fix applied." in out and code == 0
    assert (tmp_path / "a.env").read_text() == "NCCL_IB_TIMEOUT=22\nTP=8\n"


def test_cli_fix_only(tmp_path, fix_rules, capsys):
    write_repo(tmp_path, {"a.env": "NCCL_IB_TIMOUT=22\nTP=16\n"})
    fix_rules.append(replace_text(".env", "NCCL_IB_TIMOUT", "NCCL_IB_TIMEOUT"))
    fix_rules.append(replace_text(".env", "TP=16", "TP=8", safe=False, code="ZZ903"))
    code = main(["check", "--select", "ZZ", "--fix-only", str(tmp_path / "a.env")])
    out = capsys.readouterr().out
    assert out == "1 fix applied; 1 more with --unsafe-fixes.\n"
    assert code == 0


def test_cli_fix_reports_skips_on_stderr(tmp_path, fix_rules, capsys, monkeypatch):
    text = "a: [1\nb: old\n"
    write_repo(tmp_path, {"sub/bad.yaml": text})
    fix_rules.append(replace_text(".yaml", "old", "new"))
    main(["check", "--select", "ZZ", "--fix", str(tmp_path / "sub" / "bad.yaml")])
    err = capsys.readouterr().err  # not below the current directory: the absolute path
    assert f"fix not applied: {(tmp_path / 'sub' / 'bad.yaml').resolve()}:2:4: ZZ901:" in err
    monkeypatch.chdir(tmp_path / "sub")  # the file named as the findings name it, from here
    main(["check", "--select", "ZZ", "--fix", "bad.yaml"])
    err = capsys.readouterr().err
    assert "fix not applied: bad.yaml:2:4: ZZ901:" in err and "does not parse" in err


def test_unparsable_file_is_not_fixed_even_when_nl003_is_not_selected(tmp_path, fix_rules):
    text = "a: [1, 2\nb: old\n"
    write_repo(tmp_path, {"bad.yaml": text})
    fix_rules.append(replace_text(".yaml", "old", "new"))
    o = Options(paths=[tmp_path / "bad.yaml"], select=["ZZ"], jobs=1)
    assert not [f for f in lint(o).findings if f.code == "NL003"]
    run = run_fixes(o)
    assert not run.applied and (tmp_path / "bad.yaml").read_text() == text
