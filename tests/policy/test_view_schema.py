"""The workspace view JSONPath selects from is what schemas/workspace.schema.json (and so NL033 and
docs/policy.md) says it is: built over the examples and the shared corpus, it validates against the
generated schema, and strictly (no field the schema does not list)."""

import jsonschema
import pytest

from conftest import CORPUS, ROOT, run_lint
from netlint.policy.schema import collection_models, workspace_schema
from netlint.policy.view import View, kind_of


def _strict(node):
    if isinstance(node, dict):
        if "allOf" in node:  # a collection item: the model's own schema (kind is checked unstrict)
            return _strict(node["allOf"][0])
        node = {k: _strict(v) for k, v in node.items()}
        if "properties" in node and "additionalProperties" not in node:
            node["additionalProperties"] = False
        return node
    if isinstance(node, list):
        return [_strict(v) for v in node]
    return node


@pytest.mark.parametrize("where", ["examples", "corpus"])
def test_the_view_matches_the_generated_schema(where, shared):
    path = ROOT / "examples" if where == "examples" else CORPUS
    data = View().build(run_lint(path).workspace)
    assert data["switches"] and data["nccl_envs"] and data["jobs"]
    schema = workspace_schema()
    errors = [e.message[:200] for e in jsonschema.Draft202012Validator(schema).iter_errors(data)]
    assert errors == []
    bare = {k: [{a: b for a, b in i.items() if a != "kind"} for i in v] if isinstance(v, list) else v
            for k, v in data.items()}
    errors = [f"{list(e.absolute_path)[:5]}: {e.message[:200]}"
              for e in jsonschema.Draft202012Validator(_strict(schema)).iter_errors(bare)]
    assert errors == [], "a model field the workspace schema does not list: python -m netlint.schemas_gen"


def test_every_collection_item_has_its_kind(shared):
    ws = run_lint(CORPUS).workspace
    data = View().build(ws)
    kinds = {name: {kind_of(c) for c in classes} for name, classes in collection_models().items()}
    for name in kinds:
        assert [i["kind"] for i in data[name]] == [kind_of(type(m)) for m in getattr(ws, name)]
        assert {i["kind"] for i in data[name]} <= kinds[name], name
    assert {i["kind"] for i in data["jobs"]} == {"training_job", "ds_config", "hostfile"}


def test_the_field_reference_in_the_docs_is_generated():
    from netlint.policy.schema import DOCS_END, DOCS_START, field_reference

    text = (ROOT / "docs" / "policy.md").read_text()
    got = text[text.index(DOCS_START) + len(DOCS_START):text.index(DOCS_END)].strip()
    assert got == field_reference().strip(), "docs/policy.md drifted: python -m netlint.policy.schema"
    for name in ("SwitchQos", "Port", "NcclVar", "TrainingJob", "DsConfig", "Hostfile", "Roce"):
        assert f"**{name}** — `$." in got, name
