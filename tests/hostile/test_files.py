"""Hostile files on disk (issue 13): FIFOs, devices, links out of the project or in a loop, names too
long, files too large. Walked: skipped in silence; named: NL001/NL013 at the file or at the inventory
entry. Never a hang (a FIFO blocks a reader forever, /dev/zero never ends) and never a traceback."""

from __future__ import annotations

import os

import pytest

from hostile_tools import at, hits, report, shown

pytestmark = pytest.mark.skipif(os.name != "posix", reason="FIFOs and symbolic links")
ENV = "NCCL_DEBUG=WARN\nNCCL_IB_TIMEOUT=99\n"  # one NCCL316 at 2:17: the rest of the run still reports
INVENTORY = """\
cluster: pod-a
nodes: {count: 2, gpus: 8, gpu: H100-SXM, nvlink_domain: 8}
fabric: {transport: roce}
switches:
  - {name: leaf01, config: NAME}
"""


def _repo(tmp_path, hostile):
    (tmp_path / "train.env").write_text(ENV, encoding="utf-8")
    hostile(tmp_path / "config_db.json")
    return tmp_path


HOSTILE = {
    "fifo": lambda p: os.mkfifo(p),
    "dev-zero": lambda p: os.symlink("/dev/zero", p),
    "outside": lambda p: os.symlink("/etc/hostname" if os.path.exists("/etc/hostname") else "/etc/passwd", p),
    "loop": lambda p: (os.symlink(p.with_name("other.json"), p), os.symlink(p, p.with_name("other.json"))),
}
WHY = {"fifo": "a FIFO (named pipe), not a regular file", "dev-zero": "a symbolic link to /dev/zero, outside",
       "outside": "outside the project root", "loop": "a symbolic link loop"}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_walked_hostile_file_is_skipped_in_silence(tmp_path, kind):
    rep, r = report(_repo(tmp_path, HOSTILE[kind]), ".")
    assert [(f["code"], f["file"], f["line"]) for f in rep["findings"]] == [("NCCL316", "train.env", 2)], shown(rep)
    assert rep["files"] == ["train.env"] and r.returncode == 1


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_named_hostile_file_is_nl001_at_the_file(tmp_path, kind):
    rep, r = report(_repo(tmp_path, HOSTILE[kind]), "config_db.json", "train.env")
    assert [at(f) for f in hits(rep, "NL001", WHY[kind])] == [("config_db.json", 1, 1)], shown(rep)
    assert [at(f) for f in hits(rep, "NCCL316")] == [("train.env", 2, 17)]
    assert r.returncode == 1 and not hits(rep, "NL000")


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "loop"])
def test_inventory_entry_naming_a_hostile_file_is_nl001_at_the_entry(tmp_path, kind):
    _repo(tmp_path, HOSTILE[kind])
    (tmp_path / "inventory.yaml").write_text(INVENTORY.replace("NAME", "config_db.json"), encoding="utf-8")
    rep, _ = report(tmp_path, ".")
    assert [at(f) for f in hits(rep, "NL001", "named by the inventory is not read")] == [("inventory.yaml", 5, 28)]
    assert not hits(rep, "NL000") and not hits(rep, "NL010")


def test_a_path_component_over_255_bytes_is_nl001_at_the_inventory_entry(tmp_path):
    (tmp_path / "train.env").write_text(ENV, encoding="utf-8")
    (tmp_path / "inventory.yaml").write_text(INVENTORY.replace("NAME", "x" * 300 + "/config_db.json"),
                                             encoding="utf-8")
    rep, _ = report(tmp_path, ".")
    found = hits(rep, "NL001", "longer than the system allows (255 bytes)")
    assert [at(f) for f in found] == [("inventory.yaml", 5, 28)], shown(rep)
    assert [at(f) for f in hits(rep, "NCCL316")] == [("train.env", 2, 17)]


def test_a_script_naming_unreadable_files_reads_the_rest(tmp_path):
    """`source` of a name too long, a FIFO as --deepspeed_config, `sbatch` of /dev/zero: not followed."""
    os.mkfifo(tmp_path / "ds.json")
    os.symlink("/dev/zero", tmp_path / "inner.sh")
    (tmp_path / "train.sh").write_text(
        f"source ./{'y' * 300}.sh\nsource ./inner.sh\nexport NCCL_IB_TIMEOUT=99\nsbatch inner.sh\n"
        "deepspeed pretrain_gpt.py --tensor-model-parallel-size 2 --deepspeed --deepspeed_config ds.json\n",
        encoding="utf-8")
    rep, r = report(tmp_path, ".")
    assert not hits(rep, "NL000"), shown(rep)
    assert [at(f) for f in hits(rep, "NCCL316")] == [("train.sh", 3, 24)]


def test_a_file_over_max_file_mb_is_nl013_and_not_read(tmp_path):
    (tmp_path / "netlint.yaml").write_text("limits: {max-file-mb: 1}\n", encoding="utf-8")
    (tmp_path / "train.env").write_text(ENV + "# padding\n" * 120_000, encoding="utf-8")  # 1.2 MB
    rep, r = report(tmp_path, ".")
    assert [(f["code"], f["file"], f["line"]) for f in rep["findings"]] == [("NL013", "train.env", 1)], shown(rep)
    assert "larger than limits.max-file-mb (1.0 MiB); it was not read" in rep["findings"][0]["message"]
    assert r.returncode == 1


def test_a_fifo_named_as_the_configuration_is_a_config_error(tmp_path):
    os.mkfifo(tmp_path / "netlint-ci.yaml")
    (tmp_path / "train.env").write_text(ENV, encoding="utf-8")
    from hostile_tools import run

    r = run(tmp_path, ".", "--config", "netlint-ci.yaml")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "netlint-ci.yaml:1:1: NL008 cannot read config: a FIFO (named pipe), not a regular file" in r.stderr


def test_a_folder_linked_into_itself_is_walked_once(tmp_path):
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "train.env").write_text(ENV, encoding="utf-8")
    os.symlink("..", tmp_path / "jobs" / "up")  # jobs/up/jobs/up/... without end
    os.symlink(tmp_path / "jobs", tmp_path / "jobs-link")
    rep, r = report(tmp_path, ".")
    assert [at(f) for f in rep["findings"]] == [("jobs/train.env", 2, 17)], shown(rep)


@pytest.mark.parametrize("kind", ["fifo", "deep", "big-int"])
def test_a_hostile_baseline_is_a_located_error_not_a_hang(tmp_path, kind):
    """The baseline may come with the pull request under review, like any other file."""
    path = tmp_path / "baseline.json"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        inner = "[" * 10000 + "]" * 10000 if kind == "deep" else "9" * 5000
        path.write_text('{"netlint-baseline": 1, "findings": [%s]}' % inner, encoding="utf-8")
    (tmp_path / "train.env").write_text(ENV, encoding="utf-8")
    from hostile_tools import run

    r = run(tmp_path, ".", "--baseline", "baseline.json")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "baseline.json:1:1: NL008 cannot read baseline" in r.stderr, r.stderr[-500:]
