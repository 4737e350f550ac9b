"""Warm re-lint latency of the language server (issue 19 point 6): one edited file, context warm.

For each example file (an env file, a SONiC config_db.json, a native switch YAML, a Megatron launch
script, the inventory), in a copy of examples/: open it in a :class:`netlint.server.store.Store`, lint
once (cold: every context file is read), then ``--runs`` times change the buffer (a trailing comment
or space, so the text really differs) and lint again, as ``textDocument/didChange`` does. Prints the
cold time and the median and max warm times (``time.perf_counter``), and the files read per warm lint
(1: only the buffer). With ``--stdio`` it also times the round trip through ``netlint server`` over
stdio: didChange sent → publishDiagnostics received. Not a test: nothing fails on time (the target,
< 100 ms, is printed beside the figures).

    python benchmarks/bench_server.py [--runs 50] [--stdio]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = {"nccl/train.env": "# edit {n}\n", "switches/leaf01/config_db.json": "\n",
         "switches/leaf02.yaml": "# edit {n}\n", "jobs/pretrain_gpt.sh": "# edit {n}\n",
         "inventory.yaml": "# edit {n}\n"}


def in_process(repo: Path, runs: int) -> None:
    from netlint.server.store import Store

    for rel, tail in CASES.items():
        path = os.path.realpath(repo / rel)
        text = Path(path).read_text()
        store = Store()
        store.put(path, text)
        t0 = time.perf_counter()
        store.lint(path)
        cold = time.perf_counter() - t0
        times, reads = [], []
        for n in range(runs):
            store.put(path, text + tail.format(n=n) * (n % 2 + 1))
            before = store.loaded
            t0 = time.perf_counter()
            store.lint(path)
            times.append(time.perf_counter() - t0)
            reads.append(store.loaded - before)
        print(f"{rel:34s} cold {cold * 1000:7.1f} ms   warm median {statistics.median(times) * 1000:6.1f} ms"
              f"  max {max(times) * 1000:6.1f} ms   files read per edit {max(reads)}   (target < 100 ms)")


def over_stdio(repo: Path, runs: int) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "netlint", "server"], cwd=repo, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def send(msg: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **msg}).encode()
        proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        proc.stdin.flush()

    def read() -> dict:
        length = 0
        while True:
            line = proc.stdout.readline().strip()
            if not line:
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(proc.stdout.read(length))

    def wait(pred) -> dict:
        while True:
            msg = read()
            if "id" in msg and "method" in msg:
                send({"id": msg["id"], "result": None})
            elif pred(msg):
                return msg

    send({"id": 1, "method": "initialize", "params": {"processId": None, "rootUri": repo.as_uri(),
                                                      "capabilities": {}}})
    wait(lambda m: m.get("id") == 1)
    send({"method": "initialized", "params": {}})
    env = repo / "nccl" / "train.env"
    uri, text = env.as_uri(), env.read_text()
    send({"method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "dotenv", "version": 1, "text": text}}})
    wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")
    times = []
    for n in range(runs):
        t0 = time.perf_counter()
        send({"method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": n + 2},
              "contentChanges": [{"text": text + f"# edit {n}\n"}]}})
        wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")
        times.append(time.perf_counter() - t0)
    send({"id": 2, "method": "shutdown", "params": None})
    wait(lambda m: m.get("id") == 2)
    send({"method": "exit", "params": None})
    proc.wait(timeout=20)
    print(f"{'stdio: nccl/train.env didChange':34s} round trip median {statistics.median(times) * 1000:6.1f} ms"
          f"  max {max(times) * 1000:6.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--stdio", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        shutil.copytree(ROOT / "examples", repo)
        in_process(repo, args.runs)
        if args.stdio:
            over_stdio(repo, args.runs)


if __name__ == "__main__":
    main()
