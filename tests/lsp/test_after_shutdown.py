"""What a client may send between `shutdown` and `exit`, through the real server on stdio.

VS Code stopping the server while requests are in flight sends their `$/cancelRequest`, and
the answers to the server's last requests, after `shutdown`. LSP: a request then gets
InvalidRequest, a notification is dropped; nothing of it is worth a warning in the user's
output channel (pygls warned "Server shutting down. No more requests!" for each, which the
extension's output-channel check caught). A raw client, so the order on the wire is exact.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from .conftest import SERVER_DIR, WAIT


def send(stdin: IO[bytes], message: dict[str, Any]) -> None:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stdin.flush()


def read_all(stdout: IO[bytes], into: queue.Queue[dict[str, Any] | None]) -> None:
    """The server's messages, in order, then None when it closes its output."""
    while True:
        length = 0
        while (line := stdout.readline()).strip() != b"":
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        if not length:
            into.put(None)
            return
        into.put(json.loads(stdout.read(length)))


def until(
    messages: queue.Queue[dict[str, Any] | None], wanted: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """The first message `wanted` accepts; a silent or closed server fails the test, not hangs it."""
    while True:
        message = messages.get(timeout=WAIT)
        assert message is not None, "the server closed its output"
        if wanted(message):
            return message


def test_what_comes_after_shutdown_is_answered_quietly(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": SERVER_DIR}
    server = subprocess.Popen(
        [sys.executable, "-m", "exportlens", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=env,
    )
    assert server.stdin and server.stdout
    messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
    threading.Thread(target=read_all, args=(server.stdout, messages), daemon=True).start()
    try:
        capabilities = {"workspace": {"configuration": True}}
        send(server.stdin, {"id": 1, "method": "initialize", "params": {
            "processId": None, "rootUri": tmp_path.as_uri(), "capabilities": capabilities,
            "initializationOptions": {"settings": {"daemon": False}},
        }})  # fmt: skip
        until(messages, lambda m: m.get("id") == 1)
        send(server.stdin, {"method": "initialized", "params": {}})
        # the server asks for its settings; the client answers only after shutdown
        asked = until(messages, lambda m: m.get("method") == "workspace/configuration")
        send(server.stdin, {"id": 2, "method": "shutdown"})
        answer = until(messages, lambda m: m.get("id") == 2 and "method" not in m)
        assert answer.get("result", "missing") is None, answer

        send(server.stdin, {"id": asked["id"], "result": [{}]})
        send(server.stdin, {"method": "$/cancelRequest", "params": {"id": 1}})
        send(server.stdin, {"method": "textDocument/didClose", "params": {
            "textDocument": {"uri": (tmp_path / "a.py").as_uri()}}})  # fmt: skip
        hover = {
            "textDocument": {"uri": (tmp_path / "a.py").as_uri()},
            "position": {"line": 0, "character": 0},
        }
        send(server.stdin, {"id": 3, "method": "textDocument/hover", "params": hover})
        refused = until(messages, lambda m: m.get("id") == 3)
        assert refused.get("error", {}).get("code") == -32600, refused  # InvalidRequest

        send(server.stdin, {"method": "exit"})
        server.stdin.close()
        assert server.wait(WAIT) == 0
    finally:
        server.kill()
        server.wait()
    assert server.stderr
    errors = server.stderr.read().decode()
    server.stderr.close()
    assert "No more requests" not in errors, errors
    assert "WARNING" not in errors and "ERROR" not in errors and "Traceback" not in errors, errors
