"""One strategy per input family: a seed document of that family, mutated (strategies.py), or, for the
text formats (env files, launch scripts, TOML), lines drawn from a small grammar of the format."""

from __future__ import annotations

from hypothesis import strategies as st

from strategies import (HOSTILE, HOT_FLAGS, MEGATRON_FLAGS, Raw, document, hostile_raw, mutated, nccl_names,
                        spliced, to_json, to_yaml)

R = Raw
PORTS = [f"Ethernet{i}" for i in (0, 8)]
QOS = {"dscp_to_tc_map": "RDMA", "tc_to_pg_map": "RDMA", "tc_to_queue_map": "RDMA",
       "pfc_to_queue_map": "RDMA", "pfc_enable": "3,4", "pfcwd_sw_enable": "3"}
SONIC = {
    "DEVICE_METADATA": {"localhost": {"hostname": "leaf01", "hwsku": "Mellanox-SN4600C-C64",
                                      "buffer_model": "traditional", "default_pfcwd_status": "enable"}},
    "PORT": {p: {"speed": "400000", "mtu": "9100", "admin_status": "up", "lanes": "0,1,2,3"} for p in PORTS},
    "CABLE_LENGTH": {"AZURE": {p: "5m" for p in PORTS}},
    "DSCP_TO_TC_MAP": {"RDMA": {"0": "0", "26": "3", "46": "5", "48": "6"}},
    "TC_TO_PRIORITY_GROUP_MAP": {"RDMA": {"0": "0", "3": "3", "6": "0"}},
    "TC_TO_QUEUE_MAP": {"RDMA": {"0": "0", "3": "3", "6": "6"}},
    "MAP_PFC_PRIORITY_TO_QUEUE": {"RDMA": {"3": "3", "4": "4"}},
    "PORT_QOS_MAP": {"global": {"dscp_to_tc_map": "RDMA"}, **{p: dict(QOS) for p in PORTS}},
    "WRED_PROFILE": {"ROCE": {"ecn": "ecn_all", "wred_green_enable": "true", "green_min_threshold": "150000",
                              "green_max_threshold": "1500000", "green_drop_probability": "5"}},
    "SCHEDULER": {"scheduler.0": {"type": "DWRR", "weight": "14"}},
    "QUEUE": {f"{PORTS[0]}|3": {"scheduler": "scheduler.0", "wred_profile": "ROCE"},
              f"{PORTS[1]}|0-2": {"scheduler": "scheduler.0"}},
    "BUFFER_POOL": {"ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": "47218432",
                                              "xoff": "1794048"},
                    "egress_lossy_pool": {"type": "egress", "mode": "dynamic", "size": "47218432"}},
    "BUFFER_PROFILE": {"pg_lossless_400000_5m_profile": {"pool": "ingress_lossless_pool", "size": "19456",
                                                         "xon": "19456", "xoff": "183296", "dynamic_th": "0"},
                       "egress_lossy_profile": {"pool": "egress_lossy_pool", "size": "0", "dynamic_th": "7"}},
    "BUFFER_PG": {f"{PORTS[0]}|3-4": {"profile": "pg_lossless_400000_5m_profile"}},
    "BUFFER_QUEUE": {f"{PORTS[0]}|0-2": {"profile": "egress_lossy_profile"}},
    "PFC_WD": {PORTS[0]: {"action": "drop", "detection_time": "200", "restoration_time": "400"},
               "GLOBAL": {"POLL_INTERVAL": "200"}},
}
NVUE = [{"set": {
    "system": {"hostname": "leaf03"},
    "qos": {"pfc": {"default-global": {"switch-priority": {"3": {}, "4": {}}, "cable-length": 5,
                                       "tx": "enable", "rx": "enable"}},
            "pfc-watchdog": {"polling-interval": 100},
            "mapping": {"default-global": {"trust": "l3", "dscp": {"26": {"switch-priority": 3},
                                                                   "48": {"switch-priority": 6}}}},
            "congestion-control": {"default-global": {"traffic-class": {"3": {
                "min-threshold": R("150000"), "max-threshold": R("1500000"), "probability": 100,
                "ecn": "enable"}}}},
            "egress-scheduler": {"default-global": {"traffic-class": {"3": {"mode": "dwrr", "bw-percent": 50}}}},
            "roce": {"enable": "on", "mode": "lossless"}},
    "interface": {"swp1": {"link": {"mtu": 9216, "speed": R("400G")},
                           "qos": {"pfc": {"profile": "default-global"}, "pfc-watchdog": {"state": "enable"}}}},
}}]
NATIVE = {
    "switch": "leaf02", "trust": "dscp", "buffer_model": "dynamic",
    "dscp_to_tc": {R("0"): R("0"), R("26"): R("3"), R("48"): R("6")}, "tc_to_pg": {R("3"): R("3")},
    "tc_to_queue": {R("0"): R("0"), R("3"): R("3")}, "pfc_priority_to_queue": {R("3"): R("3")},
    "pfc": {"priorities": [R("3")], "watchdog": {"enabled": True, "detection_ms": R("200"),
                                                 "restoration_ms": R("400"), "action": "drop"}},
    "ecn": {R("3"): {"enabled": True, "min_bytes": R("150000"), "max_bytes": R("1500000"), "probability": R("5")}},
    "scheduler": {R("3"): {"type": "dwrr", "weight": R("50")}},
    "buffer_pools": {"lossless": {"type": "ingress", "mode": "dynamic", "size": R("47218432")}},
    "buffer_profiles": {"pg3": {"pool": "lossless", "size": R("19456"), "xon": R("19456"), "xoff": R("183296"),
                                "dynamic_th": R("0")}},
    "priority_groups": {R("3"): {"profile": "pg3"}},
    "ports": [{"name": "Ethernet1", "speed": R("400G"), "mtu": R("9214"), "cable_length": R("3")},
              {"name": "Ethernet2", "speed": R("100G"), "mtu": R("9214"), "pfc": {"priorities": [R("3")]}}],
}
INVENTORY = {
    "cluster": "pod-a",
    "nodes": {"count": R("4"), "gpus": R("8"), "gpu": "H100-SXM", "nvlink_domain": R("8"), "mtu": R("9000"),
              "roce_gid_index": R("3"),
              "nics": [{"hca": "mlx5_0", "netdev": "ens1np0", "speed": R("400G"), "rail": R("0")},
                       {"hca": "mlx5_1", "netdev": "ens2np0", "speed": R("400G"), "rail": R("1")}],
              "host_nics": [{"role": "frontend", "netdev": "eth0", "speed": R("100G")}]},
    "fabric": {"transport": "roce", "topology": "rail-optimized", "oversubscription": R("1"), "mtu": R("9100"),
               "roce": {"dscp": R("26"), "priority": R("3"), "cnp_dscp": R("48"), "cnp_priority": R("6")}},
    "switches": [{"name": "leaf01", "config": "config_db.json"}],
}
DS_CONFIG = {
    "train_batch_size": R("48"), "train_micro_batch_size_per_gpu": R("4"), "gradient_accumulation_steps": R("6"),
    "fp16": {"enabled": True, "loss_scale": R("0")}, "bf16": {"enabled": False},
    "zero_optimization": {"stage": R("2"), "overlap_comm": True, "reduce_bucket_size": R("5e8"),
                          "offload_optimizer": {"device": "cpu"}},
    "gradient_clipping": R("1.0"), "steps_per_print": R("10"),
}
NEMO = {
    "trainer": {"devices": R("8"), "num_nodes": R("2"), "precision": "bf16", "max_steps": R("100")},
    "model": {"tensor_model_parallel_size": R("2"), "pipeline_model_parallel_size": R("2"),
              "context_parallel_size": R("1"), "expert_model_parallel_size": R("1"),
              "virtual_pipeline_model_parallel_size": None, "micro_batch_size": R("1"),
              "global_batch_size": R("64"), "num_layers": R("32"), "hidden_size": R("4096"),
              "num_attention_heads": R("32"), "encoder_seq_length": R("4096"), "sequence_parallel": True,
              "ffn_hidden_size": R("14336"), "num_query_groups": R("8")},
}
K8S = {
    "apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "gpt"},
    "spec": {"pytorchReplicaSpecs": {"Worker": {"replicas": R("4"), "template": {"spec": {"containers": [{
        "name": "trainer", "image": "nvcr.io/nvidia/pytorch:24.05-py3",
        "command": ["bash", "-c", "export NCCL_IB_TC=106 && mpirun -x NCCL_DEBUG=INFO -x NCCL_IB_HCA=mlx5 python t.py"],
        "env": [{"name": "NCCL_IB_HCA", "value": "=mlx5_0,mlx5_1"}, {"name": "NCCL_IB_TC", "value": "106"},
                {"name": "NCCL_SOCKET_IFNAME", "value": "$(IFACE)"}, {"name": "IFACE", "value": "eth0"},
                {"name": "NCCL_IB_GID_INDEX", "valueFrom": {"fieldRef": {"fieldPath": "x"}}}],
    }]}}}}},
}
CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "nccl"},
             "data": {"nccl.conf": "NCCL_IB_TC=106\nNCCL_DEBUG=WARN\n", "NCCL_IB_HCA": "mlx5_0",
                      "run.sh": "#!/bin/bash\nexport NCCL_IB_TIMEOUT=22\n"}}
POLICY = {"rules": [
    {"id": "ORG001", "summary": "jumbo frames", "severity": "error", "given": "$.switches[*].ports.*",
     "assert": "has(self.mtu) && self.mtu >= 9000", "message": "port {self.name} has MTU {self.mtu}",
     "examples": {"pass": [{"name": "swp1", "mtu": 9216}], "fail": [{"name": "swp1", "mtu": 1500}]}},
    {"id": "ORG002", "summary": "ECN Kmin", "given": "$.switches[*].wred_profiles.*.green", "template": "range",
     "params": {"field": "min_threshold", "min": R("100000"), "max": R("1000000")}},
    {"id": "ORG003", "summary": "NCCL HCA set", "given": "$.nccl_envs[*]", "template": "required",
     "params": {"field": "variables.NCCL_IB_HCA"}},
]}
CEL = ["self.mtu >= 9000", "has(self.x)", "size(self.ports) > 0", "self.name.matches('^swp[0-9]+$')",
       "self.mtu / 0 > 1", "int(self.name) > 3", "self.ports.all(p, p.mtu > 0)", "'3' in self.queues",
       "workspace.switches.all(s, s.name != '')", "self.mtu + 9223372036854775807 > 0", "[1,2,3].map(x, x * x)",
       "self.name + self.name == ''", "double(self.mtu) > 1e308 * 10.0", "self.x.y.z", "!true", "("]
JSONPATH = ["$.switches[*].ports.*", "$.switches[*]", "$..*", "$.nccl_envs[*].variables.*", "$.jobs[*]",
            "$.inventory.nodes[*].nics[*]", "$[", "$.switches[?(@.name == 'x')]", "$.switches[-1:]", "$..ports..*"]


def _json_repo(seed, name):
    return document(seed, name, "json")


sonic = _json_repo(SONIC, "config_db.json")
sonic_flat = mutated({f"{table}|{key}": {f: v for f, v in fields.items()}
                      for table, rows in SONIC.items() for key, fields in rows.items()}
                     ).map(to_json).flatmap(spliced).map(lambda t: {"config_db.json": t})
nvue = document(NVUE, "startup.yaml")
native = document(NATIVE, "leaf02.yaml")
inventory_alone = document(INVENTORY, "inventory.yaml")
ds_config = _json_repo(DS_CONFIG, "ds_config.json")
nemo = document(NEMO, "nemo_config.yaml")
k8s = st.one_of(document(K8S, "pytorchjob.yaml"), document(CONFIGMAP, "configmap.yaml"))


@st.composite
def policies(draw):
    seed = draw(mutated(POLICY))
    for rule in seed.get("rules", []) if isinstance(seed, dict) and isinstance(seed.get("rules"), list) else []:
        if isinstance(rule, dict) and draw(st.booleans()):
            rule["assert"] = draw(st.sampled_from(CEL))
            rule["given"] = draw(st.sampled_from(JSONPATH))
    files = {"netlint.yaml": "policies: [rules/org.yaml]\n", "rules/org.yaml": draw(spliced(to_yaml(seed)))}
    files.update(draw(st.one_of(st.just({}), sonic)))
    return files


# --- text families --------------------------------------------------------------------------------
value_text = st.one_of(hostile_raw.map(str), st.sampled_from(HOSTILE), st.text(max_size=10),
                       st.sampled_from(["WARN", "INFO", "mlx5_0,mlx5_1", "=mlx5_0:1", "^lo,docker", "106", "3",
                                        "Ring,Tree", "LL128", "PHB", "SYS", "2", "22"]))


@st.composite
def env_line(draw):
    name, value = draw(nccl_names), draw(value_text)
    form = draw(st.integers(0, 9))
    return [f"{name}={value}", f"export {name}={value}", f'{name}="{value}"', f"{name}='{value}'",
            f"# {name}={value}", "", f"{name}", f"={value}", f"{name} = {value}", f"{name}={value} # note"][form]


env_file = st.lists(env_line(), max_size=25).map(lambda ls: "\n".join(ls) + "\n").flatmap(spliced).map(
    lambda t: {"train.env": t})
nccl_conf = st.lists(env_line(), max_size=15).map(lambda ls: "\n".join(ls) + "\n").map(
    lambda t: {"nccl.conf": t})


@st.composite
def flag_words(draw) -> str:
    words = []
    for _ in range(draw(st.integers(0, 8))):
        flag = draw(st.one_of(st.sampled_from(HOT_FLAGS), st.sampled_from(HOT_FLAGS), st.sampled_from(MEGATRON_FLAGS)))
        value = draw(st.one_of(hostile_raw.map(str), st.sampled_from(["8", "2", "1", "0", "4096", "$TP", "${PP}",
                                                                      "${ARGS[@]}", '"$X"', "ds.json", "$((TP*2))"])))
        words.append(f"{flag} {value}" if draw(st.integers(0, 4)) else flag)
    return " ".join(words)


@st.composite
def shell_statement(draw, depth: int = 0):
    """One bash statement of a launch script (depth bounds the nesting of compound statements)."""
    name = draw(st.sampled_from(["TP", "PP", "MBS", "GBS", "NNODES", "GPUS", "ARGS", "X", "NCCL_IB_HCA",
                                 "NCCL_IB_TC", "CUDA_DEVICE_MAX_CONNECTIONS", "MASTER_ADDR", "WORLD_SIZE"]))
    value = draw(value_text).replace("\n", " ")
    kinds = ["assign", "export", "array", "append", "launch", "launch", "sbatch", "source", "echo", "heredoc",
             "default", "arith", "unset", "readonly"]
    if depth < 2:
        kinds += ["if", "for", "case", "function", "subshell"]
    kind = draw(st.sampled_from(kinds))
    body = lambda: "\n".join(draw(st.lists(shell_statement(depth + 1), min_size=1, max_size=2)))  # noqa: E731
    launcher = draw(st.sampled_from(["torchrun --nproc_per_node $GPUS --nnodes $NNODES pretrain_gpt.py",
                                     "srun python pretrain_gpt.py", "deepspeed --num_gpus 8 pretrain_gpt.py",
                                     "python -m torch.distributed.run --nproc-per-node 8 pretrain_gpt.py",
                                     "mpirun -np 16 -x NCCL_IB_HCA=mlx5_0 -x NCCL_DEBUG python train.py",
                                     "torchrun --nproc_per_node 8 -m torchtitan.train --job.config_file t.toml"]))
    forms = {  # built lazily: only the drawn kind draws its parts
        "assign": lambda: f"{name}={value}", "export": lambda: f"export {name}={value}",
        "readonly": lambda: f"readonly {name}={value}",
        "array": lambda: f"{name}=( {draw(flag_words())} )", "append": lambda: f"{name}+=( {draw(flag_words())} )",
        "launch": lambda: f"{launcher} {draw(flag_words())} ${{{name}[@]}} \\\n    {draw(flag_words())}",
        "sbatch": lambda: f"#SBATCH --{draw(st.sampled_from(['nodes', 'ntasks-per-node', 'gres']))}={value}",
        "source": lambda: f"source {draw(st.sampled_from(['./env.sh', 'env.sh', '$X', '/etc/profile', 'x' * 300]))}",
        "echo": lambda: f'echo "${{{name}:-{value}}}" | sed "s/a/b/"',
        "heredoc": lambda: f"cat <<'EOF' > ds.json\n{to_json({**DS_CONFIG, 'train_batch_size': draw(hostile_raw)})}"
                           f"\nEOF" if draw(st.booleans()) else f"cat <<EOF > nccl.conf\n{name}={value}\nEOF",
        "default": lambda: f": ${{{name}:={value}}}",
        "arith": lambda: f"{name}=$(( {value} * 2 / ${{{name}:-1}} ))",
        "unset": lambda: f"unset {name}",
        "if": lambda: f"if [ \"${name}\" = {value!r} ]; then\n{body()}\nelse\n{body()}\nfi",
        "for": lambda: f"for {name} in 1 2 {value}; do\n{body()}\ndone",
        "case": lambda: f"case \"${name}\" in\n  a|b) {body()} ;;\n  *) {body()} ;;\nesac",
        "function": lambda: f"setup() {{\n{body()}\n}}\nsetup",
        "subshell": lambda: f"( {body()} )",
    }
    return forms[kind]()


bash_script = st.lists(shell_statement(), min_size=1, max_size=8).map(
    lambda ss: "#!/bin/bash\n" + "\n".join(ss) + "\n").flatmap(spliced).map(lambda t: {"train.sh": t})


@st.composite
def toml_doc(draw) -> dict:
    keys = {"parallelism": ["tensor_parallel_degree", "pipeline_parallel_degree", "context_parallel_degree",
                            "expert_parallel_degree", "expert_tensor_parallel_degree",
                            "data_parallel_replicate_degree", "data_parallel_shard_degree"],
            "training": ["local_batch_size", "global_batch_size", "seq_len", "steps"],
            "job": ["dump_folder", "description"], "model": ["name", "flavor"]}
    if draw(st.booleans()):  # the layout before pytorch/torchtitan@785c34c9 ([training] / [experimental])
        keys = {"training": ["tensor_parallel_degree", "data_parallel_replicate_degree", "data_parallel_shard_degree",
                             "data_parallel_degree", "data_parallel_type", "batch_size", "seq_len"],
                "experimental": ["pipeline_parallel_degree", "context_parallel_degree"],
                "job": ["dump_folder"], "model": ["name", "flavor"]}
    first = next(iter(keys))
    lines = []
    for section, names in keys.items():
        if draw(st.integers(0, 5)) == 0 and section != first:
            continue
        lines.append(f"[{section}]")
        for key in names:
            if draw(st.integers(0, 3)) == 0:
                continue
            if draw(st.integers(0, 7)):  # most values are what torchtitan expects, so the file is read
                value = draw(st.sampled_from(["1", "2", "4", "8", "-1", "0", "16", "4096", '"x"', '"ddp"']))
            else:
                value = draw(st.one_of(hostile_raw.map(str), st.sampled_from(
                    ['"x"', "[1, 2]", "{a = 1}", "true", "1979-05-27", "[[[1]]]", "0x_1", "1__0", "+inf", "nan",
                     "9223372036854775808", "-9223372036854775809", "0x7fffffffffffffff"])))
            lines.append(f"{key} = {value}")
    return {"train.toml": draw(spliced("\n".join(lines) + "\n"))}


FAMILIES = {
    "sonic": st.one_of(sonic, sonic_flat),
    "nvue": nvue,
    "native-switch": native,
    "env": st.one_of(env_file, nccl_conf),
    "k8s": k8s,
    "bash": bash_script,
    "ds-config": ds_config,
    "nemo": nemo,
    "torchtitan": toml_doc(),
    "inventory": st.tuples(inventory_alone, st.one_of(sonic, native.map(lambda f: {"config_db.json": f["leaf02.yaml"]}),
                                                      st.just({}))).map(lambda t: {**t[1], **t[0]}),
    "policies": policies(),
}


def with_inventory(family):
    """The family's files beside the example inventory, so the cross-file rules (XC, FAB) run too."""
    seed = {"inventory.yaml": to_yaml(INVENTORY)}
    return st.tuples(family, st.booleans()).map(lambda t: {**(seed if t[1] else {}), **t[0]})
