"""--format github: workflow-command annotations with actions/toolkit escaping."""

from __future__ import annotations

import re

from inttools import INVENTORY, _not_on_github, cli, copy_examples, write  # noqa: F401
from netlint.findings import Finding, Fix, Related, Severity
from netlint.located import Span
from netlint.reporters.github import annotation, command, escape_data, escape_property

SPECIAL = "100% of 3:4, then\r\nnext\rline\n%0A"  # every character that needs escaping, plus a literal %0A


def unescape_data(text: str) -> str:
    return text.replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")


def unescape_property(text: str) -> str:
    return unescape_data(text.replace("%3A", ":").replace("%2C", ","))


COMMAND = re.compile(r"::(?P<level>error|warning|notice)(?: (?P<props>[^:]*))?::(?P<data>.*)\Z")


def parse(line: str) -> tuple[str, dict[str, str], str]:
    """Read a workflow command back the way the runner does: split on the first '::' after the
    properties, properties on ',', key from value on the first '='."""
    assert "\n" not in line and "\r" not in line
    m = COMMAND.match(line)
    assert m, line
    props = {}
    for part in (m.group("props") or "").split(","):
        if part:
            k, v = part.split("=", 1)
            props[k] = unescape_property(v)
    return m.group("level"), props, unescape_data(m.group("data"))


def test_escape_data_and_properties():
    assert escape_data(SPECIAL) == "100%25 of 3:4, then%0D%0Anext%0Dline%0A%250A"
    assert escape_property(SPECIAL) == "100%25 of 3%3A4%2C then%0D%0Anext%0Dline%0A%250A"
    assert unescape_data(escape_data(SPECIAL)) == SPECIAL
    assert unescape_property(escape_property(SPECIAL)) == SPECIAL


def test_command_round_trips_every_special_character():
    line = command("error", SPECIAL, file=SPECIAL, line=3, title=SPECIAL)
    level, props, data = parse(line)
    assert level == "error" and data == SPECIAL
    assert props == {"file": SPECIAL, "line": "3", "title": SPECIAL}


class _Report:
    """Enough of a Report for the reporter: config root and workspace texts."""

    def __init__(self, root):
        from netlint.config import Config
        from netlint.workspace import Workspace

        self.config = Config(root=root)
        self.workspace = Workspace(root=root, config=self.config)
        self.findings, self.files = [], []


def test_annotation_with_special_file_name_and_message(tmp_path):
    name = "lab%1,a:b\r\nc.env"
    f = Finding("NCCL301", SPECIAL, Span(name, 2, 5, 2, 9), Severity.WARNING,
                related=(Related(Span("inventory.yaml", 7, 3, 7, 5), "set here: 50%"),),
                fix=Fix("rename, then: retry", (), safe=False))
    line = annotation(f, _Report(tmp_path), {"NCCL301": "unknown-variable"})
    level, props, data = parse(line)
    assert level == "warning"
    assert props == {"file": name, "line": "2", "endLine": "2", "col": "5", "endColumn": "9",
                     "title": "NCCL301 unknown-variable"}
    assert data.splitlines()[0:3] == SPECIAL.splitlines()[0:3]
    assert data.startswith(SPECIAL)
    assert "  inventory.yaml:7:3: set here: 50%" in data and data.endswith("fix (unsafe): rename, then: retry")


def test_levels_and_multi_line_spans(tmp_path):
    rep = _Report(tmp_path)
    info = Finding("NCCL306", "deprecated", Span("a.env", 1, 1, 1, 4), Severity.INFO)
    multi = Finding("QOS104", "block", Span("s.yaml", 3, 5, 6, 2), Severity.ERROR)
    assert parse(annotation(info, rep, {}))[0] == "notice"
    level, props, _ = parse(annotation(multi, rep, {}))
    assert level == "error" and props["line"] == "3" and props["endLine"] == "6"
    assert "col" not in props and "endColumn" not in props  # GitHub ignores columns across lines
    assert props["title"] == "QOS104"


def test_end_to_end_file_name_and_message_with_specials(tmp_path, capsys):
    # A real file whose name holds %, comma, colon, CR and LF, and a finding whose message holds
    # %, colon and comma (NL022 quotes the directive it cannot read).
    name = "odd%25,na:me\r\nx.env"
    write(tmp_path, {"inventory.yaml": INVENTORY,
                     name: "NCCL_DEBUG=WARN  # netlint: oops%0A:a,b\n"})
    rc, out, _ = cli(capsys, "check", "--format", "github", tmp_path)
    assert rc == 1
    lines = [ln for ln in out.split("\n") if ln.startswith("::")]
    (line,) = lines
    level, props, data = parse(line)
    assert props["file"] == name
    assert data.startswith("unknown netlint directive 'oops%0A:a,b'")
    assert props["title"] == "NL022 invalid-suppression"


def test_auto_selected_on_github_actions(tmp_path, capsys, monkeypatch):
    write(tmp_path, {"inventory.yaml": INVENTORY + "fabrik: {}\n"})
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    rc, out, _ = cli(capsys, "check", tmp_path)
    assert rc == 1 and out.startswith("::error file=inventory.yaml,line=4,endLine=4,col=1,endColumn=7,")
    rc, out, _ = cli(capsys, "check", "--format", "text", tmp_path)
    # the text names files from the current directory; tmp_path is not below it: absolute
    assert out.startswith(f"{tmp_path.resolve().as_posix()}/inventory.yaml:4:1: NL004")


def test_paths_relative_to_github_workspace(tmp_path, capsys, monkeypatch):
    repo = tmp_path / "repo"
    copy_examples(repo / "infra")
    write(repo / "infra", {"inventory.yaml": (repo / "infra" / "inventory.yaml").read_text() + "fabrik: {}\n"})
    monkeypatch.setenv("GITHUB_WORKSPACE", str(repo))
    rc, out, _ = cli(capsys, "check", "--format", "github", repo / "infra")
    files = {parse(ln)[1]["file"] for ln in out.splitlines() if ln.startswith("::")}
    assert "infra/inventory.yaml" in files and all(f.startswith("infra/") for f in files)


def test_summary_mentions_the_annotation_limit(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY + "".join(f"extra{i}: 1\n" for i in range(12))})
    rc, out, _ = cli(capsys, "check", "--format", "github", "--statistics", tmp_path)
    lines = out.splitlines()
    assert sum(ln.startswith("::error ") for ln in lines) == 12
    assert any("   12  NL004" in ln for ln in lines)
    assert "at most 10 errors and 10 warnings per step" in lines[-1]
    assert not any(ln.startswith("::") for ln in lines[12:])
