"""One timed run of a command for bench/speed_rows.py: its stdout lines with their times, its CPU
and its memory, the whole process tree counted (the CLI, its worker and the worker's job children;
or the torch process).

- each stdout and stderr line is stamped when this process reads it (the child flushes each line:
  the CLI's report on stdout, its early "found, still checking" lines on stderr);
- CPU: user + system of the process and every descendant it reaped (`os.wait4`), so a job child
  counts once its worker reaped it;
- peak RSS: the largest single process of the tree (`ru_maxrss` from `wait4`: descendants included);
- peak tree PSS: the tree sampled every `SAMPLE_S` (`/proc/PID/smaps_rollup`), what the machine held:
  PSS shares a forked child's copy-on-write pages with its parent instead of counting them twice.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from measure import process_table

SAMPLE_S = 0.2


@dataclass
class Probe:
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    peak_tree_pss_mb: float
    status: int
    lines: list[tuple[float, str]] = field(default_factory=list)  # (seconds after the start, text)
    stderr_tail: str = ""
    err_lines: list[tuple[float, str]] = field(default_factory=list)  # stderr's, stamped the same


def _children() -> dict[int, list[int]]:
    return process_table()[1]


def _pss_mb(pid: int) -> float:
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text(encoding="utf-8")
    except OSError:
        return 0.0
    for line in text.splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024.0
    return 0.0


def tree_pss_mb(root: int) -> float:
    """PSS of `root` and all its live descendants, in MiB."""
    tree, total, todo = _children(), 0.0, [root]
    while todo:
        pid = todo.pop()
        total += _pss_mb(pid)
        todo += tree.get(pid, [])
    return total


def probe(argv: list[str], cwd: Path, env: dict[str, str], stderr_to: Path) -> Probe:
    """Run `argv` to its end; the figures above."""
    peak = [0.0]
    done = threading.Event()
    started = time.perf_counter()
    err_lines: list[tuple[float, str]] = []
    with stderr_to.open("w", encoding="utf-8") as err:
        pipe = subprocess.PIPE
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=pipe, stderr=pipe, text=True, errors="replace")

        def sample() -> None:
            while not done.wait(SAMPLE_S):
                peak[0] = max(peak[0], tree_pss_mb(proc.pid))

        def read_stderr() -> None:
            assert proc.stderr is not None
            for line in proc.stderr:
                err_lines.append((time.perf_counter() - started, line.rstrip("\n")))
                err.write(line)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        reader = threading.Thread(target=read_stderr, daemon=True)
        reader.start()
        lines: list[tuple[float, str]] = []
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append((time.perf_counter() - started, line.rstrip("\n")))
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        done.set()
        sampler.join()
        reader.join(timeout=5.0)  # a grandchild still holding stderr must not hang the bench
    tail = stderr_to.read_text(encoding="utf-8", errors="replace")[-2000:]
    return Probe(
        wall_s=wall,
        cpu_s=usage.ru_utime + usage.ru_stime,
        peak_rss_mb=usage.ru_maxrss / 1024.0,
        peak_tree_pss_mb=peak[0],
        status=proc.returncode,
        lines=lines,
        stderr_tail=tail,
        err_lines=list(err_lines),
    )
