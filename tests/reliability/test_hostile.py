"""Hostile user code, through the real server: every kind ends in a clear result, the server
answers the next request, nothing is left running, and a clean module of another file exports.

One test per kind. The code runs in `forward` unless the kind is marked `import` (top level).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
from lsprotocol import types

from ..lsp.conftest import Session
from .conftest import alive, assert_only_worker_left, clean_export_works, wait_gone

TEMPLATE = """
import ctypes
import os
import signal
import sys
import threading
import time

import torch

{prelude}


class Victim(torch.nn.Module):
    def forward(self, x):
{forward}
        return x + 1

    def example_inputs(self):
{inputs}
"""
INPUTS = "return (torch.ones(2),)"


@dataclass
class Kind:
    forward: str = ""  # statements run by forward (they see fake tensors in non-strict mode)
    prelude: str = ""  # statements run when the module is imported
    inputs: str = INPUTS  # body of example_inputs
    codes: tuple[str, ...] = ()  # the error diagnostics expected (none: a clean export)
    needle: str | None = None  # the diagnostic's line contains this (else the class line)
    message: str = ""  # text the diagnostic's message contains
    kills_worker: bool = False
    pid_file: bool = False  # the code writes the pids it started to {pids}: all must be dead


FORK_BOMB = """
pids = []
for _ in range(50):
    pid = os.fork()
    if pid == 0:
        time.sleep(1000)
        os._exit(0)
    pids.append(pid)
with open({pids!r}, "w") as f:
    f.write(" ".join(map(str, pids)))
"""
# Double fork and a new session: leaves the job's process group, outlives the job's child.
DAEMON = """
read_end, write_end = os.pipe()
if os.fork() == 0:
    os.setsid()
    daemon = os.fork()
    if daemon == 0:
        time.sleep(1000)
        os._exit(0)
    os.write(write_end, str(daemon).encode())
    os._exit(0)
os.close(write_end)
with open({pids!r}, "w") as f:
    f.write(os.read(read_end, 100).decode())
"""
ATEXIT = """
import atexit
atexit.register(lambda: open({pids!r}, "w").write("atexit ran"))
"""
THREAD = "threading.Thread(target=time.sleep, args=(1000,)).start()"
KINDS: dict[str, Kind] = {
    "hang": Kind(forward="threading.Event().wait()", codes=("export-timeout",)),
    "hang-at-import": Kind(prelude="time.sleep(1000)", codes=("export-timeout",)),
    "busy-loop": Kind(forward="while True:\n    pass", codes=("export-timeout",)),
    "segfault": Kind(forward="ctypes.string_at(0)", codes=("worker-crashed",), message="SIGSEGV"),
    "segfault-at-import": Kind(prelude="ctypes.string_at(0)", codes=("worker-crashed",), message="SIGSEGV"),
    "os-exit": Kind(forward="os._exit(7)", codes=("worker-crashed",), message="exited with status 7"),
    "sys-exit": Kind(forward="sys.exit(3)", codes=("user-exit",), needle="sys.exit(3)"),
    "sys-exit-at-import": Kind(prelude="sys.exit(3)", codes=("user-exit",), needle="sys.exit(3)"),
    "kill-worker": Kind(
        forward="os.kill(os.getppid(), signal.SIGKILL)", codes=("worker-crashed",), kills_worker=True
    ),
    "allocate-100gb": Kind(
        forward="hog = bytearray(100 * 2**30)", codes=("out-of-memory",), needle="bytearray"
    ),
    "allocate-100gb-tensor-at-import": Kind(
        prelude="HOG = torch.ones(100 * 2**30, dtype=torch.uint8)", codes=("out-of-memory",), needle="HOG ="
    ),
    "print-100mb": Kind(
        forward='sys.stdout.write("o" * (100 * 2**20))\nsys.stderr.write("e" * (100 * 2**20))'
    ),
    "read-stdin": Kind(
        forward='assert sys.stdin.read() == ""\ninput("? ")', codes=("user-exception",), needle="input("
    ),
    "fork-bomb": Kind(forward=FORK_BOMB, pid_file=True),
    "daemon-escapes-the-process-group": Kind(forward=DAEMON, pid_file=True),
    "non-daemon-threads": Kind(prelude=THREAD, forward=THREAD),
    "chdir": Kind(prelude='os.chdir("/")', forward='os.chdir("/tmp")'),
    "sys-path": Kind(prelude='sys.path[:] = ["/nonexistent"]'),
    "sys-modules": Kind(prelude='sys.modules["pickle"] = None\nsys.modules.pop("exportlens_worker", None)'),
    "signal-handlers": Kind(
        prelude=(
            "for s in (signal.SIGTERM, signal.SIGINT, signal.SIGCHLD, signal.SIGPIPE, signal.SIGHUP):\n"
            "    signal.signal(s, signal.SIG_IGN)\n"
            "signal.signal(signal.SIGALRM, lambda *a: None)\n"
            "signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)"
        )
    ),
    "environment": Kind(prelude='os.environ.clear()\nos.environ["PYTHONPATH"] = "/nonexistent"'),
    "atexit": Kind(prelude=ATEXIT, pid_file=True),
    "monkeypatch-torch": Kind(
        prelude=(
            "def boom(*args, **kwargs):\n"
            '    raise RuntimeError("torch.export was monkeypatched")\n'
            "torch.export.export = boom\n"
            "torch.Tensor.__add__ = boom"
        ),
        codes=("user-exception",),
        needle='raise RuntimeError("torch.export was monkeypatched")',
        message="monkeypatched",
    ),
    "keyboard-interrupt": Kind(forward="raise KeyboardInterrupt", codes=("user-exit",), needle="raise"),
    "system-exit": Kind(forward="raise SystemExit(1)", codes=("user-exit",), needle="raise"),
    "generator-exit": Kind(forward="raise GeneratorExit", codes=("user-exception",), needle="raise"),
    "unbounded-recursion": Kind(
        forward="return self.forward(x)", codes=("user-exception",), needle="return self.forward"
    ),
    "recursion-past-the-c-stack": Kind(
        prelude=(
            "sys.setrecursionlimit(10**8)\n"
            "def deep(n):  # through C (map) so the C stack overflows\n"
            "    return [*map(deep, [n + 1])]"
        ),
        forward="deep(0)",
        codes=("worker-crashed",),
    ),
    "unprintable-exception": Kind(
        prelude=(
            "class Nasty(Exception):\n"
            "    def __str__(self):\n"
            '        raise RuntimeError("no str for you")\n'
            "    __repr__ = __str__"
        ),
        forward="raise Nasty()",
        codes=("user-exception",),
        needle='raise RuntimeError("no str for you")',
        message="no str for you",
    ),
    "inputs-are-a-generator": Kind(
        inputs="return (torch.ones(2) for _ in range(1))",
        codes=("export-error",),
        message="Unsupported input",
    ),
    "inputs-are-a-lambda": Kind(
        inputs="return lambda: torch.ones(2)", codes=("export-error",), message="Unsupported input"
    ),
}


def source_of(kind: Kind, pids: str) -> str:
    def block(code: str, indent: int) -> str:
        return textwrap.indent(code.format(pids=pids) if code else "pass", " " * indent)

    return TEMPLATE.format(
        prelude=block(kind.prelude, 0), forward=block(kind.forward, 8), inputs=block(kind.inputs, 8)
    )


@pytest.mark.parametrize("name", list(KINDS))
async def test_hostile(hostile_server: Session, tmp_path: Path, name: str) -> None:
    kind = KINDS[name]
    server = hostile_server
    before = await server.command("exportlens.status")
    pids = str(tmp_path / "pids.txt")
    text = source_of(kind, pids)
    file = f"hostile_{name.replace('-', '_')}.py"

    diagnostics = await server.open(file, text)

    # A check that ran out of time is a warning (whether torch exports it is not known).
    timeouts = [d for d in diagnostics if d.code == "export-timeout"]
    assert all(d.severity == types.DiagnosticSeverity.Warning for d in timeouts), timeouts
    errors = [d for d in diagnostics if d.severity == types.DiagnosticSeverity.Error] + timeouts
    assert sorted(str(d.code) for d in errors) == sorted(kind.codes), [
        (d.code, d.message) for d in diagnostics
    ]
    lines = text.lstrip("\n").splitlines()
    for d in errors:
        expected = next(i for i, line in enumerate(lines) if (kind.needle or "class Victim") in line)
        assert d.range.start.line == expected, (d.range, d.message)
        assert kind.message in d.message, d.message
        assert "Victim" in d.message or d.code != "worker-crashed", d.message
    lenses = await server.lenses((server.root / file).resolve().as_uri())
    assert lenses and lenses[0] != "exporting…", lenses

    # the server answers the next request normally
    status = await assert_only_worker_left(server)
    assert status["pid"] == before["pid"]
    if kind.kills_worker:
        assert status["workerPid"] != before["workerPid"]
    if kind.pid_file:
        started = Path(pids).read_text().split() if Path(pids).exists() else []
        if name == "atexit":
            assert started == [], "an atexit handler of user code ran"
        else:
            assert started, "the hostile code did not run"
            await wait_gone([int(p) for p in started])
            assert not any(alive(int(p)) for p in started)
    await clean_export_works(server, f"after_{name.replace('-', '_')}.py")
    await assert_only_worker_left(server)
