"""Generate a mixed infra repo of about N files for benchmarks: switch QoS files, NCCL env files,
Megatron and DeepSpeed launch scripts, DeepSpeed configs, hostfiles and NeMo YAML configs.

``python benchmarks/generate_mixed.py OUT_DIR N``. The repo is a ``netlint.yaml`` and an inventory at the
root, then job folders of ten files each (``jobs/gNN/jNNNN/``: a Megatron script, a DeepSpeed launch with
its ``ds_config.json`` and hostfile, a ``.env``, an ``nccl.conf``, an ``env.sh`` that only exports, a
NeMo config; ``switches/gNN/``: a SONiC ``config_db.json`` and a native switch file) and a shared
``env.sh`` per group of ten folders, which applies by directory to every job below it. Every few
folders carry the mistakes real repos have (a misspelt Megatron flag or DeepSpeed key, a batch that does
not divide, an NCCL typo, a switch whose CNP class shares a lossy TC), so rules report on many files,
not only clean ones. Deterministic: the same N gives the same files.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate_switches import sonic as switch_db  # noqa: E402

FOLDERS_PER_GROUP = 10

CONFIG = "inventory: inventory.yaml\n"

INVENTORY = """cluster: pod-a
nodes:
  count: 512
  gpus: 8
  gpu: H100-SXM
  nvlink_domain: 8
  nics:
""" + "".join(f"    - {{hca: mlx5_{r}, netdev: ens{r + 1}np0, speed: 400G, rail: {r}}}\n" for r in range(8)) + """fabric:
  transport: roce
  topology: rail-optimized
  oversubscription: 1
  mtu: 9100
  roce: {dscp: 26, priority: 3, cnp_dscp: 48, cnp_priority: 6}
"""

GROUP_ENV = """# NCCL settings shared by every job of this group
export NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7
export NCCL_SOCKET_IFNAME=ens1np0
export NCCL_IB_GID_INDEX=3
"""


def megatron(i: int) -> str:
    bad = i % 3 == 0
    tp, pp = (8, 2) if i % 4 else (16, 2)
    gbs = 1536 if i % 5 else 1000
    return f"""#!/bin/bash
#SBATCH --job-name=gpt-{i}
#SBATCH --nodes=8
#SBATCH --ntasks-per-node=1
#SBATCH --gres=gpu:8

export CUDA_DEVICE_MAX_CONNECTIONS=1
GPUS_PER_NODE=8
NUM_NODES=8
TP={tp}
PP={pp}

DISTRIBUTED_ARGS=(
    --nproc_per_node $GPUS_PER_NODE
    --nnodes $NUM_NODES
)
GPT_MODEL_ARGS=(
    --num-layers 48
    --hidden-size 6144
    --num-attention-heads 48
    --seq-length 4096
    --max-position-embeddings 4096
)
TRAINING_ARGS=(
    --micro-batch-size 1
    --global-batch-size {gbs}
    --train-iters 500000
    --weight-decay 0.1
    --adam-beta1 0.9
    --adam-beta2 0.95
    --clip-grad 1.0
    --bf16
    --lr 6.0e-5
    --lr-decay-style cosine
    --min-lr 6.0e-6
    --lr-warmup-fraction .001
    {"--use-distributed-optimiser" if bad else "--use-distributed-optimizer"}
    {"--overlap-grad-reduse" if bad else "--overlap-grad-reduce"}
)
MODEL_PARALLEL_ARGS=(
    --tensor-model-parallel-size $TP
    --pipeline-model-parallel-size $PP
    --sequence-parallel
)
DATA_ARGS=(
    --data-path /data/gpt_{i}_text_document
    --vocab-file /data/gpt2-vocab.json
    --merge-file /data/gpt2-merges.txt
    --split 949,50,1
)
srun torchrun ${{DISTRIBUTED_ARGS[@]}} pretrain_gpt.py \\
    ${{GPT_MODEL_ARGS[@]}} ${{TRAINING_ARGS[@]}} ${{MODEL_PARALLEL_ARGS[@]}} ${{DATA_ARGS[@]}}
"""


def ds_launch(i: int) -> str:
    return f"""#!/bin/bash
# fine-tune {i}
source ./env.sh
deepspeed --hostfile hostfile --master_port 29500 finetune.py \\
    --deepspeed --deepspeed_config ds_config.json \\
    --model_name_or_path /models/base-{i} --output_dir /out/ft-{i}
"""


def ds_config(i: int) -> str:
    bad = i % 4 == 1
    cfg = {
        "train_batch_size": 1024 if i % 3 else 1000,
        "train_micro_batch_size_per_gpu": 2,
        "gradient_accumulation_steps": 16,
        "bf16": {"enabled": True},
        "zero_optimization": {
            "stage": 2 if i % 2 else 3,
            ("overlap_com" if bad else "overlap_comm"): True,
            "contiguous_gradients": True,
            "reduce_bucket_size": 5e8,
        },
        "gradient_clipping": 1.0,
        "steps_per_print": 100,
    }
    return json.dumps(cfg, indent=2) + "\n"


def hostfile(i: int) -> str:
    return "".join(f"node{(i * 4 + k) % 512:03d} slots=8\n" for k in range(4))


def dotenv(i: int) -> str:
    return f"""# NCCL environment of job {i}
NCCL_DEBUG=WARN
NCCL_IB_TC={41 if i % 3 == 0 else 106}
NCCL_IB_TIMEOUT=22
NCCL_IB_QPS_PER_CONNECTION=4
{"NCCL_NET_GDR_LEVL=PHB" if i % 4 == 2 else "NCCL_NET_GDR_LEVEL=PHB"}
"""


def nccl_conf(i: int) -> str:
    return f"NCCL_DEBUG_SUBSYS=INIT,NET\nNCCL_IB_RETRY_CNT={7 if i % 2 else 13}\nNCCL_CROSS_NIC=0\n"


def env_sh(i: int) -> str:
    return f"""# per-job overrides
export NCCL_MIN_NCHANNELS={4 if i % 2 else 32}
export NCCL_ALGO=Ring
export NCCL_PROTO=Simple
"""


def nemo(i: int) -> str:
    tp = 4 if i % 6 else 3
    return f"""run:
  name: gpt_{i}
  results_dir: ${{base_results_dir}}/${{.name}}
  time_limit: "0-04:00:00"
trainer:
  num_nodes: 8
  devices: 8
  accelerator: gpu
  precision: bf16
  logger: False
  enable_checkpointing: False
  max_steps: 300000
  log_every_n_steps: 10
  val_check_interval: 2000
  accumulate_grad_batches: 1
  gradient_clip_val: 1.0
exp_manager:
  explicit_log_dir: ${{training.run.results_dir}}/results
  name: megatron_gpt
  resume_if_exists: false
model:
  mcore_gpt: true
  micro_batch_size: 1
  global_batch_size: {256 if i % 5 else 250}
  tensor_model_parallel_size: {tp}
  pipeline_model_parallel_size: 2
  virtual_pipeline_model_parallel_size: null
  encoder_seq_length: 4096
  max_position_embeddings: 4096
  num_layers: 32
  hidden_size: 4096
  ffn_hidden_size: 14336
  num_attention_heads: 32
  num_query_groups: 8
  init_method_std: 0.02
  hidden_dropout: 0.0
  attention_dropout: 0.0
  normalization: rmsnorm
  position_embedding_type: rope
  sequence_parallel: true
  transformer_engine: true
  use_flash_attention: true
  optim:
    name: distributed_fused_adam
    lr: 0.0001
    weight_decay: 0.1
    betas:
    - 0.9
    - 0.95
    sched:
      name: CosineAnnealing
      warmup_steps: 636
      min_lr: 1.0e-05
  data:
    data_impl: mmap
    splits_string: "99990,8,2"
    seq_length: 4096
    num_workers: 2
    data_prefix:
    - 1.0
    - ${{data_dir}}/gpt_{i}_text_document
"""


def sonic(i: int) -> str:
    """generate_switches' 32-port SONiC leaf; every fourth puts CNP (DSCP 48) in TC 0 with bulk traffic."""
    db = json.loads(switch_db(i))
    db["DSCP_TO_TC_MAP"]["AZURE"].update({"26": "3", "48": "6" if i % 4 else "0"})
    return json.dumps(db, indent=4)


def native(i: int) -> str:
    lines = [f"switch: spine{i:05d}", "trust: dscp",
             "dscp_to_tc: {26: 3, 48: %d}" % (6 if i % 3 else 0), "pfc:", "  priorities: [3]",
             "  watchdog: {enabled: %s, detection_ms: 200, restoration_ms: 400, action: drop}"
             % ("true" if i % 2 else "false"),
             "ecn:", "  3: {enabled: true, min_bytes: 150000, max_bytes: 1500000, probability: 100}",
             "scheduler:", "  3: {type: dwrr, weight: 50}", "  6: {type: strict}", "ports:"]
    lines += [f"  - {{name: swp{p}, speed: 400G, mtu: 9216, cable_length: 3}}" for p in range(1, 17)]
    return "\n".join(lines) + "\n"


JOB_FILES = {"train.sh": megatron, "run_ds.sh": ds_launch, "ds_config.json": ds_config, "hostfile": hostfile,
             ".env": dotenv, "nccl.conf": nccl_conf, "env.sh": env_sh, "nemo.yaml": nemo}


def generate(out: Path, n: int) -> list[Path]:
    """Write about ``n`` files under ``out`` (created); returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []

    def write(rel: str, text: str) -> None:
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        paths.append(path)

    write("netlint.yaml", CONFIG)
    write("inventory.yaml", INVENTORY)
    i = 0
    while len(paths) < n:
        group = i // FOLDERS_PER_GROUP
        if i % FOLDERS_PER_GROUP == 0:
            write(f"jobs/g{group:03d}/env.sh", GROUP_ENV)
        for name, make in JOB_FILES.items():
            write(f"jobs/g{group:03d}/j{i:05d}/{name}", make(i))
        write(f"switches/g{group:03d}/leaf{i:05d}.json", sonic(i))
        write(f"switches/g{group:03d}/spine{i:05d}.yaml", native(i))
        i += 1
    return paths


if __name__ == "__main__":
    print(len(generate(Path(sys.argv[1]), int(sys.argv[2]))), "files")
