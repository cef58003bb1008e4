"""The worker's torch, for tests that run torch code themselves (re-export a fix, compare in eager).

The worker may run another torch than this process (EXPORTLENS_TEST_PYTHON): a test that checked
a fix with the torch imported here would check it against the wrong version.  One long-lived
interpreter of the worker's python runs each snippet; a snippet sets `result` (JSON) or raises.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from typing import Any

_SERVE = r"""
import json, sys, traceback
answers, sys.stdout = sys.stdout, sys.stderr  # what the snippets print never mixes with the answers
for line in sys.stdin:
    namespace = {}
    try:
        exec(compile(json.loads(line), "<test snippet>", "exec"), namespace)
        answer = {"result": namespace.get("result")}
    except BaseException:
        answer = {"error": traceback.format_exc()}
    answers.write(json.dumps(answer) + "\n")
    answers.flush()
"""


class WorkerTorch:
    def __init__(self, python: str | None) -> None:
        self.python = python or sys.executable
        self._process = subprocess.Popen(
            [self.python, "-u", "-c", _SERVE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self._lock = threading.Lock()

    def run(self, code: str) -> Any:
        """Run `code` there; its `result`.  An exception there fails the test with its traceback."""
        assert self._process.stdin is not None and self._process.stdout is not None
        with self._lock:
            self._process.stdin.write(json.dumps(code) + "\n")
            self._process.stdin.flush()
            line = self._process.stdout.readline()
        assert line, f"the worker's python ({self.python}) died"
        answer = json.loads(line)
        assert "error" not in answer, answer["error"]
        return answer["result"]

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait(timeout=30)


def exec_source(source: str, name: str) -> str:
    """Snippet text that loads `source` (not its __main__ block) as module `name` into `ns_<name>`."""
    return (
        f"import types as _t\nns_{name} = _t.ModuleType({name!r}).__dict__\n"
        f"exec(compile({source!r}, '<{name}>', 'exec'), ns_{name})\n"
    )
