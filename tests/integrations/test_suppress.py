"""Inline suppressions: `# netlint: disable=CODES -- reason` in YAML, env and shell files."""

from __future__ import annotations

import pytest

from inttools import INVENTORY, _not_on_github, cli, codes, findings, write  # noqa: F401

# NL004 (unknown key) on line 4 of this inventory, at `trasport`.
UNKNOWN_KEY = INVENTORY + "extra:\n  trasport: roce\n"


def _by_code(found, code):
    return [f for f in found if f["code"] == code]


def test_trailing_directive_suppresses_its_line(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY + "fabrik: {}  # netlint: disable=NL004 -- read by ansible\n"})
    rc, found = findings(capsys, tmp_path)
    assert rc == 0
    (f,) = _by_code(found, "NL004")
    assert f["suppressed"] == "read by ansible"
    assert f["suppression"] == {"kind": "inline", "reason": "read by ansible"}
    assert codes(found) == []


def test_directive_on_the_line_above(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY + "# netlint: disable=NL004 -- legacy\nfabrik: {}\n"})
    rc, found = findings(capsys, tmp_path)
    assert rc == 0 and codes(found) == [] and codes(found, suppressed=True) == ["NL004"]


def test_directives_stack_and_skip_comment_lines(tmp_path, capsys):
    text = INVENTORY + ("# netlint: disable=NL009 -- not this one\n"
                        "# a plain comment\n"
                        "# netlint: disable=NL004 -- this one\n"
                        "fabrik: {}\n")
    write(tmp_path, {"inventory.yaml": text})
    rc, found = findings(capsys, tmp_path / "inventory.yaml")
    assert codes(found, suppressed=True) == ["NL004"]
    # NL009 covered the same line but suppressed nothing there: reported as unused.
    (unused,) = _by_code(found, "NL020")
    assert unused["line"] == 4 and "NL009" in unused["message"]
    assert rc == 1


def test_blank_line_breaks_the_directive(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY + "# netlint: disable=NL004 -- x\n\nfabrik: {}\n"})
    rc, found = findings(capsys, tmp_path)
    assert rc == 1
    assert sorted(codes(found)) == ["NL004", "NL022"]
    assert "covers no line" in _by_code(found, "NL022")[0]["message"]


def test_directive_covers_only_its_line(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY + "fabrik: {}  # netlint: disable=NL004 -- x\nfabrak: {}\n"})
    rc, found = findings(capsys, tmp_path)
    assert rc == 1
    assert [(f["code"], f["line"]) for f in found if not f.get("suppressed")] == [("NL004", 5)]


def test_disable_file_prefix_and_all(tmp_path, capsys):
    for codes_text in ("NL004", "NL", "all"):
        write(tmp_path, {"inventory.yaml": f"# netlint: disable-file={codes_text} -- generated\n"
                                           + INVENTORY + "fabrik: {}\nfabrak: {}\n"})
        rc, found = findings(capsys, tmp_path)
        assert rc == 0, (codes_text, found)
        assert codes(found, suppressed=True) == ["NL004", "NL004"]


def test_env_and_shell_files(tmp_path, capsys, monkeypatch):
    write(tmp_path, {
        "a.env": "NCCL_DEBUG=WARN\nNCCL_DEBUGG=WARN  # netlint: disable=NCCL301 -- read by our wrapper\n",
        "run.sh": "#!/bin/bash\n# netlint: disable=NCCL301 -- read by our wrapper\nexport NCCL_DEBUGG=WARN\n",
    })
    monkeypatch.chdir(tmp_path)  # JSON paths are relative to the current directory
    rc, found = findings(capsys, tmp_path)
    assert rc == 0
    assert sorted((f["file"], f["code"]) for f in found if f.get("suppressed")) == [
        ("a.env", "NCCL301"), ("run.sh", "NCCL301")]


def test_nccl_conf_accepts_only_own_line_directives(tmp_path, capsys):
    # NCCL reads everything after '=' as the value: a trailing directive would change it.
    write(tmp_path, {"nccl.conf": "NCCL_DEBUGG=WARN # netlint: disable=NCCL301,NCCL309 -- x\n"
                                  "# netlint: disable=NCCL301 -- read by our wrapper\nNCCL_SOCKET_NTHREADZ=2\n"})
    rc, found = findings(capsys, tmp_path)
    assert rc == 1
    assert [(f["code"], f["line"]) for f in found if f.get("suppressed")] == [("NCCL301", 3)]
    (bad,) = _by_code(found, "NL022")
    assert bad["line"] == 1 and "nccl.conf" in bad["message"]
    assert {"NCCL301", "NCCL309"} <= set(codes(found))


def test_json_files_have_no_comments(tmp_path, capsys):
    # JSON cannot hold a comment; per-file-ignores covers it.
    write(tmp_path, {"inventory.yaml": INVENTORY,
                     "sw/config_db.json": '{"DEVICE_METADATA": {"localhost": {"hostname": "sw"}},\n'
                                          ' "PORT": {"Ethernet0": {"mtu": "9100", "mtu": "1500"}}}\n'})
    rc, found = findings(capsys, tmp_path / "sw/config_db.json")
    assert "NL009" in codes(found)
    write(tmp_path, {"netlint.yaml": "per-file-ignores: {'sw/*.json': [NL009]}\n"})
    rc, found = findings(capsys, tmp_path / "sw/config_db.json")
    assert "NL009" not in codes(found)


def test_require_reason(tmp_path, capsys):
    write(tmp_path, {"netlint.yaml": "require-suppression-reason: true\n",
                     "inventory.yaml": INVENTORY + "fabrik: {}  # netlint: disable=NL004\n"
                                       "fabrak: {}  # netlint: disable=NL004 -- has one\n"})
    rc, found = findings(capsys, tmp_path)
    assert rc == 1
    assert [(f["code"], f["line"]) for f in found if not f.get("suppressed")] == [("NL004", 4), ("NL021", 4)]
    assert [(f["code"], f["line"]) for f in found if f.get("suppressed")] == [("NL004", 5)]


def test_reason_not_required_by_default(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY + "fabrik: {}  # netlint: disable=NL004\n"})
    rc, found = findings(capsys, tmp_path)
    assert rc == 0 and codes(found) == []


def test_unused_suppression_is_reported_and_fixed(tmp_path, capsys):
    text = INVENTORY + "fabrik: {}  # netlint: disable=NL004,NL009 -- x\n# netlint: disable=NL005 -- stale\nnote: {}\n"
    write(tmp_path, {"inventory.yaml": text})
    rc, found = findings(capsys, tmp_path)
    unused = _by_code(found, "NL020")
    assert [(f["line"], f["column"]) for f in unused] == [(4, 13), (5, 1)]
    assert all(f["fix"]["applicability"] == "safe" for f in unused)
    # `note: {}` is an unknown key too: NL004 on line 6 is reported.
    assert ("NL004", 6) in [(f["code"], f["line"]) for f in found if not f.get("suppressed")]
    rc, _, _ = cli(capsys, "check", "--fix", "--select", "NL", tmp_path)
    after = (tmp_path / "inventory.yaml").read_text()
    assert after == INVENTORY + "fabrik: {}  # netlint: disable=NL004 -- x\nnote: {}\n"
    rc, found = findings(capsys, tmp_path)
    assert "NL020" not in codes(found)


def test_unused_trailing_directive_fix_removes_the_comment(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY + "cluster_note: 1\nextra: 2   # netlint: disable=NL009 -- x\n"})
    rc, found = findings(capsys, tmp_path, "--select", "NL")
    (f,) = _by_code(found, "NL020")
    cli(capsys, "check", "--fix", "--select", "NL", tmp_path)
    assert (tmp_path / "inventory.yaml").read_text() == INVENTORY + "cluster_note: 1\nextra: 2\n"


def test_unused_not_reported_for_rules_that_are_off(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY + "# netlint: disable=NL009 -- x\ncluster_x: 1\n"})
    rc, found = findings(capsys, tmp_path, "--ignore", "NL009,NL004")
    assert codes(found) == []
    write(tmp_path, {"netlint.yaml": "severity: {NL009: 'off'}\n"})
    rc, found = findings(capsys, tmp_path, "--ignore", "NL004")
    assert codes(found) == []


def test_no_inline_suppressions(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY + "fabrik: {}  # netlint: disable=NL004 -- x\n"
                                       "# netlint: disable=NL009 -- unused\nfabrak: 1\n"})
    rc, found = findings(capsys, tmp_path, "--no-inline-suppressions")
    assert rc == 1
    assert codes(found) == ["NL004", "NL004"]  # no NL020 either: directives are not read at all


@pytest.mark.parametrize("comment, words", [
    ("# netlint: disable-line=NL004", "unknown netlint directive"),
    ("# netlint: disable", "names no rule codes"),
    ("# netlint: disable=", "names no rule codes"),
    ("# netlint: disable=NL0O4 -- typo", "matches no netlint rule"),
    ("# netlint: disable=NL-4", "not a rule code"),
])
def test_invalid_directives(tmp_path, capsys, comment, words):
    write(tmp_path, {"inventory.yaml": INVENTORY + f"fabrik: {{}}  {comment}\n"})
    rc, found = findings(capsys, tmp_path)
    assert rc == 1
    assert "NL004" in codes(found)  # the finding stays
    (bad,) = _by_code(found, "NL022")
    assert words in bad["message"] and bad["line"] == 4


def test_policy_codes_are_taken_on_trust(tmp_path, capsys):
    # ORG001 is no built-in rule, but an organisation's policy may define it: no NL022, and since it
    # suppressed nothing here, it is reported as unused like any other code.
    write(tmp_path, {"inventory.yaml": INVENTORY + "fabrik: {}  # netlint: disable=ORG001,NL004 -- x\n"})
    rc, found = findings(capsys, tmp_path)
    assert "NL022" not in codes(found)
    (unused,) = _by_code(found, "NL020")
    assert "ORG001" in unused["message"]


def test_hash_inside_a_word_is_not_a_comment(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY + "fabrik: 'a#netlint: disable=NL004'\n"})
    rc, found = findings(capsys, tmp_path)
    assert codes(found) == ["NL004"]


def test_suppression_findings_have_docs(capsys):
    for code in ("NL020", "NL021", "NL022"):
        rc, out, _ = cli(capsys, "rule", code)
        assert rc == 0 and code in out


def test_text_output_hides_suppressed_and_counts_them(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY + "fabrik: {}  # netlint: disable=NL004 -- x\n"})
    rc, out, _ = cli(capsys, "check", "--format", "text", tmp_path)
    assert rc == 0
    assert "NL004" not in out and "1 suppressed" in out


def test_crlf_files(tmp_path, capsys):
    text = (INVENTORY + "fabrik: {}  # netlint: disable=NL004 -- x\n# netlint: disable=NL009 -- stale\nnote: 1\n")
    (tmp_path / "inventory.yaml").write_bytes(text.replace("\n", "\r\n").encode())
    rc, found = findings(capsys, tmp_path, "--ignore", "NL004")
    (unused,) = _by_code(found, "NL020")
    assert unused["line"] == 5
    cli(capsys, "check", "--fix", "--select", "NL", "--ignore", "NL004", tmp_path)
    after = (tmp_path / "inventory.yaml").read_bytes().decode()
    assert after == (INVENTORY + "fabrik: {}  # netlint: disable=NL004 -- x\nnote: 1\n").replace("\n", "\r\n")
