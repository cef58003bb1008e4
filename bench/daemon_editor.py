"""The editor and the worker daemon: a reopened window's first verified squiggle, idle memory.

    PYTHONPATH=server python bench/daemon_editor.py [--repeat 3]

- Reopen: a fresh server (`serve --start-worker`, as the extension starts it in a trusted
  workspace) opens the MLP with a data-dependent branch (bench models) with nothing in the results
  store; the time from launching the server to the first published diagnostics, which with an
  empty store are the verified ones (target ≤ 1.5 s with a warm daemon, issue 32). Measured
  alternately with a warm daemon running (`exportlens.daemon` on) and without one (off: the
  server's own worker, today's way), in the same run. CPU: the server's process tree (with the
  early worker it reaped) plus, warm, what the daemon's tree spent meanwhile.
- Idle memory: RSS and PSS (/proc/PID/smaps_rollup: a forked child's pages shared with its parent
  are counted once) of the idle daemon, its worker and the worker's spare child; and of an idle
  server's own worker and spare, for reference.
Each run has its own results store and runtime folder under a temp dir; its daemon is stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT))  # tests.lsp: the pytest-lsp session helpers

from tests.lsp.conftest import start, stop  # noqa: E402

from daemon_cli import tree_cpu  # noqa: E402
from exportlens.engine.daemon_stop import stop_daemons  # noqa: E402
from measure import median  # noqa: E402
from models import mlp  # noqa: E402
from reopen import GUARD, RETURN  # noqa: E402


@dataclass
class Memory:
    """MB, summed over the processes: (RSS, PSS)."""

    processes: int
    rss: float
    pss: float


@dataclass
class DaemonEditorReport:
    """Medians, seconds."""

    warm_wall: float  # didOpen → first verified diagnostics, a warm daemon running (as reopen.py)
    warm_cpu: float  # from launch
    warm_launched: float  # launch → first verified diagnostics
    warm_initialized: float  # of which launch → `initialize` answered (the server's imports)
    own_wall: float  # the same, daemon off: the server's own (early) worker
    own_cpu: float
    own_launched: float
    daemon_memory: Memory  # the idle daemon, its worker, its spare
    own_memory: Memory  # an idle server's own worker and its spare
    load: tuple[float, float]


def tree(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            todo += [int(c) for c in Path(f"/proc/{current}/task/{current}/children").read_text().split()]
        except OSError:
            continue
    return found


def memory(pids: list[int]) -> Memory:
    rss = pss = 0.0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                name, _, rest = line.partition(":")
                if name in ("Rss", "Pss"):
                    kb = int(rest.split()[0]) / 1024
                    rss, pss = (rss + kb, pss) if name == "Rss" else (rss, pss + kb)
        except OSError:
            continue
    return Memory(len(pids), rss, pss)


def daemon_pid(runtime: Path) -> int:
    """The pid behind the runtime folder's socket (its peer credentials)."""
    import socket

    from exportlens.engine.daemon_paths import peer_credentials

    (path,) = runtime.glob("*.sock")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(str(path))
        pid, _uid = peer_credentials(sock)
    assert pid
    return int(pid)


async def open_once(
    tmp: Path, text: str, runtime: Path, daemon: bool
) -> tuple[float, float, dict[str, object]]:
    """(launch → first diagnostics s, CPU s, the status after)."""
    os.environ["EXPORTLENS_CACHE_DIR"] = str(tmp / "cache")  # empty: the first diagnostics are verified
    root = tmp / "ws"
    root.mkdir(parents=True)
    (root / "model.py").write_text(text)
    uri = (root / "model.py").resolve().as_uri()
    settings = {"debounceMs": 0, "timeoutSeconds": 120, "daemon": daemon}
    pid = daemon_pid(runtime)
    daemon_before = tree_cpu(pid)
    started = time.perf_counter()
    runtime_env = {"EXPORTLENS_RUNTIME_DIR": str(runtime)}
    # the settings in the initialize request too, as the extension sends them
    session = await start(root, settings, {"settings": settings}, start_worker=True, env=runtime_env)
    initialized = time.perf_counter() - started
    try:
        opened = time.perf_counter()
        checked = asyncio.create_task(session.open_uri(uri, text))
        while not any(p.uri == uri and p.diagnostics for p in session.record.published):
            await asyncio.sleep(0.001)
        wall = time.perf_counter() - opened
        launched = time.perf_counter() - started
        await checked
        status = await session.command("exportlens.status")
        cpu = tree_cpu(int(status["pid"]))
        codes = [d.code for p in session.record.published if p.uri == uri for d in p.diagnostics]
        assert "data-dependent-branch" in codes, codes
        assert (status["daemon"] is not None) == daemon, status
    finally:
        await stop(session)
    status["initialized"], status["launched"] = initialized, launched
    return wall, cpu + (tree_cpu(pid) - daemon_before if daemon else 0.0), status


async def own_worker_memory(tmp: Path, text: str, runtime: Path) -> Memory:
    """An idle server with its own worker: the worker and its spare, once warm."""
    os.environ["EXPORTLENS_CACHE_DIR"] = str(tmp / "cache")
    root = tmp / "ws"
    root.mkdir(parents=True)
    (root / "model.py").write_text(text)
    settings = {"debounceMs": 0, "timeoutSeconds": 120, "daemon": False}
    session = await start(root, settings, env={"EXPORTLENS_RUNTIME_DIR": str(runtime)})
    try:
        await session.open_uri((root / "model.py").resolve().as_uri(), text)
        await asyncio.sleep(5.0)  # the deferred warm-up and the spare child
        worker = (await session.command("exportlens.status"))["workerPid"]
        return memory(tree(int(worker)))
    finally:
        await stop(session)


async def measure_daemon_editor(repeat: int) -> DaemonEditorReport:
    load_before = os.getloadavg()[0]
    text = mlp().source(strict=False).replace(RETURN, GUARD + RETURN)
    saved = os.environ.get("EXPORTLENS_CACHE_DIR")
    warm: list[tuple[float, float, float, float]] = []
    own: list[tuple[float, float, float, float]] = []
    with tempfile.TemporaryDirectory(prefix="elb-") as folder:
        tmp = Path(folder)
        runtime = tmp / "rt"
        try:
            # a daemon as the CLI leaves it (the editor's and the CLI's are one)
            (tmp / "clean.py").write_text(mlp().source(strict=False))
            env = dict(os.environ, PYTHONPATH=str(ROOT / "server"), EXPORTLENS_RUNTIME_DIR=str(runtime))
            env["EXPORTLENS_CACHE_DIR"] = str(tmp / "cli-cache")
            subprocess.run(
                [sys.executable, "-m", "exportlens", "check", str(tmp / "clean.py"), "--no-cache"],
                env=env,
                capture_output=True,
                timeout=600,
                check=False,
            )
            for n in range(repeat):
                for daemon, rows in ((True, warm), (False, own)):
                    wall, cpu, status = await open_once(tmp / f"{n}-{daemon}", text, runtime, daemon)
                    rows.append((wall, cpu, status["launched"], status["initialized"]))  # type: ignore[arg-type]
            await asyncio.sleep(3.0)  # the daemon's spare forked again after the last job
            daemon_memory = memory(tree(daemon_pid(runtime)))
            own_memory = await own_worker_memory(tmp / "own", text, runtime)
        finally:
            stop_daemons(runtime)
            os.environ.pop("EXPORTLENS_CACHE_DIR", None)
            if saved is not None:
                os.environ["EXPORTLENS_CACHE_DIR"] = saved
    return DaemonEditorReport(
        *(median([r[i] for r in warm]) for i in range(4)),
        *(median([r[i] for r in own]) for i in range(3)),
        daemon_memory,
        own_memory,
        (load_before, os.getloadavg()[0]),
    )


def table(r: DaemonEditorReport) -> str:
    d, o = r.daemon_memory, r.own_memory
    return "\n".join(
        [
            "editor reopen, MLP, first verified squiggle   didOpen s  launch s  CPU s",
            f"warm worker daemon                           {r.warm_wall:8.2f} {r.warm_launched:9.2f}"
            f" {r.warm_cpu:6.2f}",
            f"daemon off (the server's own early worker)   {r.own_wall:8.2f} {r.own_launched:9.2f}"
            f" {r.own_cpu:6.2f}",
            f"warm: launch → initialized (the server's imports, the early worker meanwhile):"
            f" {r.warm_initialized:.2f} s",
            f"target: warm didOpen → squiggle ≤ 1.5 s ({'met' if r.warm_wall <= 1.5 else 'missed'});"
            f" warm / own: {r.warm_wall / r.own_wall:.2f}; load average {r.load[0]:.2f} → {r.load[1]:.2f}",
            f"idle daemon + worker + spare ({d.processes} processes): RSS {d.rss:.0f} MB, PSS {d.pss:.0f} MB",
            f"idle server's own worker + spare ({o.processes} processes):"
            f" RSS {o.rss:.0f} MB, PSS {o.pss:.0f} MB",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(table(asyncio.run(measure_daemon_editor(args.repeat))))


if __name__ == "__main__":
    main()
