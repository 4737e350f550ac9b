"""Hostile file contents (issue 13): each ends in a located finding, or in silence, and a complete
report — never NL000, a traceback, a hang or gigabytes. The inputs are generated here, not committed."""

from __future__ import annotations

import pytest

from hostile_tools import alias_bomb, at, hits, reader_limits_nesting, report, shown

BIG = "9" * 5000  # past Python's int-string limit of 4,300 digits
INVENTORY = """\
cluster: pod-a
nodes:
  count: 2
  gpus: 8
  gpu: H100-SXM
  nvlink_domain: 8
  nics:
    - {hca: mlx5_0, netdev: ens1np0, speed: 400G, rail: 0}
fabric: {transport: roce}
"""
NATIVE = """\
switch: leaf02
trust: dscp
dscp_to_tc: {26: 3}
pfc: {priorities: [3]}
ports:
  - {name: Ethernet1, speed: SPEED, mtu: 9214}
"""
LAUNCH = "torchrun --nproc_per_node 8 --nnodes 2 pretrain_gpt.py --tensor-model-parallel-size 2 "
SONIC = '{"PORT": {"Ethernet0": {"speed": "%s", "mtu": "9100"}}, "PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3"}}}'
NEMO = "trainer: {devices: 8, num_nodes: 2}\nmodel: {tensor_model_parallel_size: 2, %s}\n"


# name: (files, code, (file, line, column) or None when silence is the answer, words in the message)
CASES = {
    "int-json": ({"ds_config.json": '{"train_batch_size": %s, "train_micro_batch_size_per_gpu": 1}' % BIG},
                 "NL005", ("ds_config.json", 1, 22), "out of range"),
    "int-yaml": ({"inventory.yaml": INVENTORY.replace("gpus: 8", f"gpus: {BIG}")},
                 "NL005", ("inventory.yaml", 4, 9), "netlint reads integers of at most 100 digits"),
    "int-toml": ({"train.toml": f"[parallelism]\ntensor_parallel_degree = 2\n[training]\nlocal_batch_size = {BIG}\n"},
                 "NL005", ("train.toml", 4, 20), "TOML integers are 64-bit"),
    "int-units": ({"leaf.yaml": NATIVE.replace("SPEED", "9" * 400 + "G")},
                  "NL005", ("leaf.yaml", 6, 30), "cannot read port speed"),
    "int-nccl": ({"train.env": f"NCCL_DEBUG=WARN\nNCCL_IB_TIMEOUT={BIG}\n"}, "NCCL303", ("train.env", 2, 17), ""),
    "int-sonic": ({"config_db.json": SONIC % BIG},
                  "NL005", ("config_db.json", 1, 34), "is not an integer"),
    "unicode-digits-nccl": ({"train.env": "NCCL_DEBUG=WARN\nNCCL_IB_TIMEOUT=9²\nNCCL_IB_TC=①\n"},
                            "NCCL304", ("train.env", 2, 18), ""),
    "unicode-digits-sonic": ({"config_db.json": SONIC % "40000²"},
                             "NL005", ("config_db.json", 1, 34), "is not an integer"),
    "unicode-digits-range": ({"config_db.json": '{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,①"}}}'},
                             "NL005", ("config_db.json", 1, 47), "pfc_enable"),
    "deep-json": ({"ds_config.json": '{"train_batch_size": 8, "x": ' + '{"a": ' * 10000 + "1" + "}" * 10000 + "}"},
                  "NL003", ("ds_config.json", 1, 624), "nested deeper than 100 levels (limits.max-depth)"),
    "deep-yaml-k8s": ({"pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec:\n  containers:\n"
                                   "  - name: c\n    env:\n    - name: NCCL_DEBUG\n      value: WARN\n    x: "
                       + "[" * 10000 + "]" * 10000 + "\n"},
                      "NL003", ("pod.yaml", 10, 1005 if reader_limits_nesting() else 104),
                      "nested deeper than 100 levels"),
    "deep-toml": ({"train.toml": "[parallelism]\ntensor_parallel_degree = 2\nx = " + "[" * 10000 + "]" * 10000 + "\n"},
                  "NL003", ("train.toml", 3, 105), "nested deeper than 100 levels"),
    "alias-bomb": ({"pod.yaml": alias_bomb()}, "NL003", ("pod.yaml", 10, 10), "aliases reach more than 100,000 nodes"),
    "speed-1e999": ({"leaf.yaml": NATIVE.replace("SPEED", "1e999G")}, "NL005", ("leaf.yaml", 6, 30),
                    "cannot read port speed '1e999G'"),
    "float-1e999-json": ({"ds_config.json": '{"train_batch_size": 1e999, "train_micro_batch_size_per_gpu": 1}'},
                         "NL005", ("ds_config.json", 1, 22), "overflows a 64-bit float"),
    "nodes-empty": ({"inventory.yaml": "cluster: x\nnodes: []\nfabric: {transport: roce}\n",
                     "train.sh": LAUNCH + "--micro-batch-size 1\n"}, "FAB503", None, ""),
    "pp-0": ({"train.sh": LAUNCH + "--pipeline-model-parallel-size 0 --micro-batch-size 1 --global-batch-size 16\n"},
             "NL000", None, ""),
    "etp-0": ({"train.sh": LAUNCH + "--expert-tensor-parallel-size 0 --expert-model-parallel-size 2 --num-experts 8 "
                                    "--micro-batch-size 1 --global-batch-size 16\n"}, "JOB404", None, ""),
    "micro-batch-0": ({"train.sh": LAUNCH + "--micro-batch-size 0 --global-batch-size 16\n"}, "JOB408", None, ""),
    "micro-batch-0-ds": ({"ds_config.json": '{"train_batch_size": 16, "train_micro_batch_size_per_gpu": 0, '
                                            '"gradient_accumulation_steps": 2}'}, "JOB430", None, ""),
    "zeros-nemo": ({"nemo.yaml": NEMO % "pipeline_model_parallel_size: 0, micro_batch_size: 0, global_batch_size: "
                                        "16, expert_tensor_parallel_size: 0, expert_model_parallel_size: 2"},
                   "JOB404", None, ""),
    "zeros-torchtitan": ({"train.toml": "[parallelism]\ntensor_parallel_degree = 2\npipeline_parallel_degree = 0\n"
                                        "expert_parallel_degree = 2\nexpert_tensor_parallel_degree = 0\n"
                                        "[training]\nlocal_batch_size = 0\nglobal_batch_size = 16\n"}, "NL000", None, ""),
}


def _write(tmp_path, files):
    for rel, text in files.items():
        (tmp_path / rel).write_text(text, encoding="utf-8")


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_input_gives_a_located_finding_or_silence(tmp_path, name):
    files, code, where, words = CASES[name]
    _write(tmp_path, files)
    rep, r = report(tmp_path, ".")
    assert not hits(rep, "NL000"), shown(rep)
    found = hits(rep, code, words)
    if where is None:
        assert not found, shown(rep)  # silence: the value stops the tool before the checked arithmetic
    else:
        assert [at(f) for f in found][:1] == [where], shown(rep)
        assert r.returncode == 1


def test_a_deep_netlint_yaml_is_a_located_config_error(tmp_path):
    _write(tmp_path, {"netlint.yaml": "rules: " + "[" * 10000 + "]" * 10000 + "\n", "train.env": "NCCL_DEBUG=WARN\n"})
    from hostile_tools import run

    r = run(tmp_path, ".", "--format", "json")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    column = 1007 if reader_limits_nesting() else 107  # where libyaml stops (1,000 levels), else netlint
    assert f"netlint.yaml:1:{column}: NL008 YAML not read: nested deeper than 100 levels (limits.max-depth)" in r.stderr


def test_limits_are_settings(tmp_path):
    """A lower max-depth and max-int-digits from netlint.yaml apply; an unknown limit is NL008."""
    _write(tmp_path, {"netlint.yaml": "limits: {max-depth: 8, max-int-digits: 20}\n",
                      "ds_config.json": '{"train_batch_size": 123456789012345678901, "x": [[[[[[[[[1]]]]]]]]]}'})
    rep, _ = report(tmp_path, ".")
    assert [at(f) for f in hits(rep, "NL003", "nested deeper than 8 levels")] == [("ds_config.json", 1, 57)]
    _write(tmp_path, {"ds_config.json": '{"train_batch_size": 123456789012345678901}'})
    rep, _ = report(tmp_path, ".")
    assert [at(f) for f in hits(rep, "NL005", "at most 20 digits")] == [("ds_config.json", 1, 22)]
    _write(tmp_path, {"netlint.yaml": "limits: {max-detph: 8}\n"})
    from hostile_tools import run

    r = run(tmp_path, ".")
    assert r.returncode == 2 and "NL008 unknown config key 'limits.max-detph'" in r.stderr
