"""netlint/data/advisories.yaml: valid against its schema, every entry sourced, versions compared right."""

from __future__ import annotations

import json

import pytest
import yaml

from netlint.advisories.data import DATA_FILE, SCHEMA_FILE, advisories, in_range, version


def _doc():
    return yaml.safe_load(DATA_FILE.read_text(encoding="utf-8"))


def test_data_validates_against_its_schema():
    import jsonschema

    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in jsonschema.Draft202012Validator(schema).iter_errors(_doc())]
    assert errors == []


def test_schema_rejects_an_entry_without_sources():
    import jsonschema

    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    doc = _doc()
    del doc["advisories"][0]["sources"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)


def test_every_entry_cites_a_public_source_and_a_fixed_release_past_the_range():
    data = advisories()
    assert len(data.advisories) >= 5
    for adv in data.advisories:
        assert adv.sources and all(("/" in s or "http" in s) for s in adv.sources), adv.id
        if adv.fixed:
            assert not adv.affects(version(adv.fixed)), adv.id   # the fixed release is out of the range
    for (image, tag), (nccl, source) in data.images.items():
        assert "docs.nvidia.com" in source and image.startswith("nvcr.io/nvidia/")
    ids = [a.id for a in data.advisories]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("v,spec,ok", [
    ("2.18.1", ">=2.18.1,<2.18.3", True), ("2.18.3", ">=2.18.1,<2.18.3", False),
    ("2.18", ">=2.18.1,<2.18.3", False), ("2.18.2-1", ">=2.18.1,<2.18.3", True),
    ("v1.13.2-aws", "<1.15.0", True), ("1.15.0", "<1.15.0", False), ("2.4.3", ">=2.4.2,<2.4.6", True),
])
def test_version_ranges(v, spec, ok):
    assert in_range(version(v), spec) is ok


def test_pins_resolve_through_the_data():
    from netlint.advisories.pins import find

    text = ("FROM nvcr.io/nvidia/pytorch:19.03-py3\nRUN pip install nvidia-nccl-cu12==2.18.1 torch==2.2.1\n"
            "srun --container-image=nvcr.io#nvidia/pytorch:19.05-py3 true\nARG AWS_OFI_NCCL_VERSION=v1.13.2-aws\n"
            "FROM nvcr.io/nvidia/pytorch:99.99-py3\n")
    got = [(p.library, p.version, p.span.line, p.span.col) for p in find("Dockerfile", text)]
    assert got == [("nccl", "2.4.3", 1, 6), ("nccl", "2.4.6", 3, 24), ("nccl", "2.18.1", 2, 17),
                   ("nccl", "2.19.3", 2, 42), ("aws-ofi-nccl", "1.13.2", 4, 5)]   # 99.99 is unknown: no pin


def test_advisories_command_lists_and_filters(capsys):
    from netlint.cli import main

    assert main(["advisories", "--version", "2.18.1", "--library", "nccl"]) == 0
    out = capsys.readouterr().out
    assert "NCCL-2018-LL128-1GPU1NIC" in out and "NCCL-2042-LL-CLEANUP-HANG" not in out
    assert "source: NVIDIA NCCL 2.18.1 Release Notes" in out
    assert main(["advisories", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["id"] for r in rows} == {a.id for a in advisories().advisories}
    assert main(["advisories", "--version", "banana"]) == 2
