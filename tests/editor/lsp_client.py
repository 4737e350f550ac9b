"""A small JSON-RPC client speaking LSP over a subprocess's stdio (Content-Length framing), for tests.

Messages are read on a thread into a queue; requests from the server (client/registerCapability,
workspace/configuration) are answered with ``null`` (or the configured reply). Timeouts are only a
guard against a hung server; nothing here measures time.
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Callable

GUARD = 60.0  # seconds: a server that answers nothing in this long is hung


class LspClient:
    def __init__(self, argv: list[str], cwd: Path, env: dict | None = None,
                 replies: dict[str, Callable[[Any], Any]] | None = None):
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.messages: "queue.Queue[dict]" = queue.Queue()
        self.notifications: list[dict] = []
        self.replies = replies or {}
        self._next = 0
        self._stderr: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    # --- wire ----------------------------------------------------------------------------------
    def _send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if length is None:
                continue
            self.messages.put(json.loads(out.read(length)))

    def _drain_stderr(self) -> None:
        for line in self.proc.stderr:
            self._stderr.append(line)

    @property
    def stderr(self) -> str:
        return b"".join(self._stderr).decode("utf-8", "replace")

    def _take(self, deadline: float) -> dict:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"no message from the server; stderr:\n{self.stderr[-3000:]}")
        try:
            msg = self.messages.get(timeout=left)
        except queue.Empty:
            raise TimeoutError(f"no message from the server; stderr:\n{self.stderr[-3000:]}") from None
        if "method" in msg and "id" in msg:  # a request from the server
            reply = self.replies.get(msg["method"])
            self._send({"id": msg["id"], "result": reply(msg.get("params")) if reply else None})
        elif "method" in msg:
            self.notifications.append(msg)
        return msg

    # --- API -----------------------------------------------------------------------------------
    def notify(self, method: str, params: Any) -> None:
        self._send({"method": method, "params": params})

    def request(self, method: str, params: Any, timeout: float = GUARD) -> Any:
        self._next += 1
        ident = self._next
        self._send({"id": ident, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            msg = self._take(deadline)
            if msg.get("id") == ident and "method" not in msg:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result")

    def wait_notification(self, method: str, match: Callable[[dict], bool] = lambda p: True,
                          timeout: float = GUARD) -> dict:
        """The first notification of ``method`` (not yet consumed) whose params ``match``; consumed."""
        deadline = time.monotonic() + timeout
        while True:
            for i, n in enumerate(self.notifications):
                if n["method"] == method and match(n.get("params")):
                    del self.notifications[i]
                    return n["params"]
            self._take(deadline)

    def diagnostics(self, uri: str, match: Callable[[list], bool] = lambda d: True,
                    timeout: float = GUARD) -> list[dict]:
        params = self.wait_notification("textDocument/publishDiagnostics",
                                        lambda p: p["uri"] == uri and match(p["diagnostics"]), timeout)
        return params["diagnostics"]

    def initialize(self, root: Path, capabilities: dict | None = None, options: Any = None) -> dict:
        result = self.request("initialize", {
            "processId": None, "rootUri": root.as_uri(), "capabilities": capabilities or {},
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            **({"initializationOptions": options} if options is not None else {})})
        self.notify("initialized", {})
        return result

    def open(self, path: Path, language: str, version: int = 1, text: str | None = None) -> str:
        uri = path.as_uri()
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": language, "version": version,
            "text": path.read_text(encoding="utf-8") if text is None else text}})
        return uri

    def change(self, uri: str, version: int, text: str) -> None:
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                               "contentChanges": [{"text": text}]})

    def close(self) -> int:
        try:
            if self.proc.poll() is None:
                self.request("shutdown", None, timeout=20)
                self.notify("exit", None)
            return self.proc.wait(timeout=20)
        except Exception:
            self.proc.kill()
            return self.proc.wait()
