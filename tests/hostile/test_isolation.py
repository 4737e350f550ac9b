"""A loader or a rule that raises is one located NL000 for that file or rule: the run completes, the
other findings are reported, JSON and SARIF are whole and valid, and the exit code is 2."""

from __future__ import annotations

import json

import pytest

from hostile_tools import at, report, run, sarif

# A loader and a rule that raise, registered before netlint runs (both registries fill on subclassing).
DRIVER = '''
import sys
from netlint.loaders.base import Loader
from netlint.rules.base import Rule

class Exploding(Loader):
    name, kind, suffixes = "exploding-test-loader", "nccl_envs", (".boom",)
    def claims(self, src):
        return True
    def load(self, src):
        yield from ()
        raise RuntimeError("loader exploded on purpose")

class ExplodingRule(Rule):
    """Raises on purpose (tests/hostile/test_isolation.py)."""
    code, name, summary = "TST999", "exploding-test-rule", "raises"
    def check(self, ws):
        raise ZeroDivisionError("rule exploded on purpose")
        yield

from netlint.cli import main
sys.exit(main(["check", *sys.argv[1:]]))
'''


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "broken.boom").write_text("anything\n", encoding="utf-8")
    # a real finding elsewhere: NCCL_IB_TIMEOUT=99 is outside the verbs range (NCCL316)
    (tmp_path / "train.env").write_text("NCCL_DEBUG=WARN\nNCCL_IB_TIMEOUT=99\n", encoding="utf-8")
    return tmp_path


def test_raising_loader_and_rule_are_located_nl000_and_the_rest_is_reported(repo):
    rep, r = report(repo, ".", driver=DRIVER)
    assert r.returncode == 2 and rep["exit_code"] == 2
    internal = {f["message"].split(":")[0]: f for f in rep["findings"] if f["code"] == "NL000"}
    assert at(internal["internal error in loader exploding-test-loader"]) == ("broken.boom", 1, 1)
    assert "RuntimeError: loader exploded on purpose" in internal["internal error in loader exploding-test-loader"]["message"]
    assert at(internal["internal error in rule TST999"]) == (".", 1, 1)
    assert [at(f) for f in rep["findings"] if f["code"] == "NCCL316"] == [("train.env", 2, 17)]
    # one line per NL000 on stderr, no traceback without --verbose
    assert r.stderr.count("internal error in") == 2 and "--verbose" in r.stderr


def test_verbose_prints_the_tracebacks(repo):
    r = run(repo, ".", "--verbose", driver=DRIVER)
    assert r.returncode == 2
    assert r.stderr.count("Traceback (most recent call last)") == 2
    assert "ZeroDivisionError: rule exploded on purpose" in r.stderr


def test_sarif_is_complete_and_says_execution_failed(repo, shared):
    doc = sarif(repo, ".", driver=DRIVER)
    run_ = doc["runs"][0]
    assert sorted(res["ruleId"] for res in run_["results"]) == ["NCCL316", "NL000", "NL000"]
    assert run_["invocations"][0] == {"executionSuccessful": False, "exitCode": 2}
    jsonschema = pytest.importorskip("jsonschema")
    schema = shared / "reference" / "sarif-schema-2.1.0.json"
    if not schema.is_file():
        pytest.skip("no SARIF schema in ../shared/reference")
    jsonschema.Draft4Validator(json.loads(schema.read_text(encoding="utf-8"))).validate(doc)


@pytest.mark.parametrize("fmt", ["text", "github"])
def test_text_and_github_formats_report_the_nl000_and_the_finding(repo, fmt):
    r = run(repo, ".", "--format", fmt, driver=DRIVER)
    assert r.returncode == 2
    assert "Traceback" not in r.stdout + r.stderr
    assert "NL000" in r.stdout and "NCCL316" in r.stdout
    assert r.stdout.count("internal error in") == 2


def test_exit_zero_does_not_hide_an_internal_error(repo):
    r = run(repo, ".", "--exit-zero", "--format", "json", driver=DRIVER)
    assert r.returncode == 2 and json.loads(r.stdout)["exit_code"] == 2


def test_a_failure_outside_every_guard_still_gives_a_whole_report(tmp_path):
    # the engine itself fails (here: discovery); the CLI reports one NL000 in the format asked for
    driver = DRIVER.split("from netlint.cli")[0] + '''
import netlint.engine
def broken(*a, **k):
    raise MemoryError("the walk failed on purpose")
netlint.engine.discover = broken
from netlint.cli import main
sys.exit(main(["check", *sys.argv[1:]]))
'''
    (tmp_path / "train.env").write_text("NCCL_DEBUG=WARN\n", encoding="utf-8")
    rep, r = report(tmp_path, ".", driver=driver)
    assert r.returncode == 2
    assert [(f["code"], f["file"], f["line"]) for f in rep["findings"]] == [("NL000", ".", 1)]
    assert "MemoryError: the walk failed on purpose" in rep["findings"][0]["message"]
    doc = sarif(tmp_path, ".", driver=driver)
    assert doc["runs"][0]["invocations"][0]["executionSuccessful"] is False


SNIFF_DRIVER = '''
import sys
from netlint.loaders.base import Loader

class TrippingSniff(Loader):
    name, kind, suffixes = "tripping-sniff-test-loader", "nccl_envs", (".sh",)
    def claims(self, src):
        raise KeyError("sniff tripped on purpose")
    def load(self, src):
        yield from ()

from netlint.cli import main
sys.exit(main(["check", *sys.argv[1:]]))
'''


def test_a_loader_whose_sniff_raises_is_a_located_nl000_and_the_other_loaders_still_read(tmp_path):
    # a crash while deciding whether to read a file used to turn into "content not recognised": silent
    (tmp_path / "env.sh").write_text("export NCCL_IB_TIMEOUT=99\n", encoding="utf-8")
    rep, r = report(tmp_path, ".", driver=SNIFF_DRIVER)
    assert r.returncode == 2
    (f,) = [f for f in rep["findings"] if f["code"] == "NL000"]
    assert at(f) == ("env.sh", 1, 1) and "tripping-sniff-test-loader (deciding whether it reads the file)" in f["message"]
    assert [at(f) for f in rep["findings"] if f["code"] == "NCCL316"] == [("env.sh", 1, 24)]
