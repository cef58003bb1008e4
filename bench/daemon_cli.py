"""The CLI on a tree where one file changed: with a warm worker daemon, and with `--no-daemon`.

    PYTHONPATH=server python bench/daemon_cli.py [--repeat 3]

A copy of examples/ in a temp folder, its results stored by a first run (which also starts the
daemon); then, each time, one file is edited (a comment added: its result key changes) and
`exportlens check` runs on the tree: the other files come from the store, the changed one is
exported. Measured alternately with the warm daemon (target ≤ 1.5 s, issue 32) and with
`--no-daemon` (a worker of the run's own: today's way). CPU: the CLI and what it waited for,
plus the daemon's process tree (its worker and the children it reaped). Everything under a temp
dir: its own results store and runtime folder, its daemon stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from exportlens.engine.daemon_stop import stop_daemons  # noqa: E402
from measure import median  # noqa: E402

CHANGED = "clean_mlp.py"
TICK = os.sysconf("SC_CLK_TCK")


def tree_cpu(pid: int) -> float:
    """CPU seconds of a process and its live descendants, with what they reaped."""
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        total += sum(int(f) for f in fields[11:15]) / TICK  # utime stime cutime cstime
        todo += [int(c) for c in children]
    return total


def run_cli(
    env: dict[str, str], tree: Path, *flags: str, findings: bool = True
) -> tuple[float, float, dict[str, object]]:
    """(wall s, CPU s of the CLI and its waited children, the JSON report)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "exportlens", "check", str(tree), "--format", "json", *flags],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode in ((1,) if findings else (0, 1)), done.stderr  # the examples have findings
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads(done.stdout)


@dataclass
class LargeRun:
    """The large model (scale.py's, meta weights) through the CLI, one run, seconds."""

    how: str  # "warm daemon" or "--no-daemon"
    wall: float
    cpu: float  # the CLI's and (warm) the daemon tree's
    job: float  # the worker's own figure for the module's job (its "seconds")


@dataclass
class DaemonCliReport:
    """Medians, seconds."""

    warm_wall: float
    warm_cpu: float  # the CLI's and the daemon tree's
    warm_daemon_cpu: float  # of which the daemon tree's
    one_off_wall: float
    one_off_cpu: float
    files: int
    load: tuple[float, float]  # load average before, after
    large: list[LargeRun] = field(default_factory=list)
    large_params: int = 0


def large_runs(env: dict[str, str], folder: Path, layers: int, pid: int) -> list[LargeRun]:
    """The large model alone (`--no-cache`), with the warm daemon, then with `--no-daemon`."""
    import scale

    folder.mkdir()
    path = folder / "large.py"
    path.write_text(scale.LARGE.format(d=scale.D_MODEL, layers=layers, vocab=scale.VOCAB), encoding="utf-8")
    # The default threshold (1024 MB); below it for a scaled-down model, so that it still goes meta.
    meta = f"{min(1024.0, scale.large_params(layers) * 4 / 2**20 / 2):g}"
    runs = []
    for how, flags in (("warm daemon", ()), ("--no-daemon", ("--no-daemon",))):
        daemon_before = tree_cpu(pid)
        wall, cpu, report = run_cli(env, path, "--no-cache", "--meta-above", meta, *flags, findings=False)
        time.sleep(0.5)
        daemon_cpu = tree_cpu(pid) - daemon_before if not flags else 0.0
        job = sum(float(m["seconds"]) for f in report["files"] for m in f["modules"])  # type: ignore[index]
        runs.append(LargeRun(how, wall, cpu + daemon_cpu, job))
    return runs


def measure_daemon_cli(repeat: int, large_layers: int = 24) -> DaemonCliReport:
    load_before = os.getloadavg()[0]
    rows: list[tuple[float, float, float, float, float]] = []
    with tempfile.TemporaryDirectory(prefix="elb-") as tmp:
        tree = Path(tmp) / "ws"
        shutil.copytree(ROOT / "examples", tree, ignore=shutil.ignore_patterns("__pycache__"))
        env = dict(
            os.environ,
            PYTHONPATH=str(ROOT / "server"),
            EXPORTLENS_CACHE_DIR=str(Path(tmp) / "cache"),
            EXPORTLENS_RUNTIME_DIR=str(Path(tmp) / "rt"),
        )
        try:
            _, _, first = run_cli(env, tree)  # fills the store, starts the daemon
            daemon = first["daemon"]
            assert isinstance(daemon, dict), "the first run used no daemon"
            pid = int(daemon["pid"])
            files = len(first["files"])  # type: ignore[arg-type]
            for n in range(repeat):
                changed = tree / CHANGED
                changed.write_text(changed.read_text() + f"\n# edit {n} (warm daemon)\n")
                daemon_before = tree_cpu(pid)
                warm_wall, warm_cli, report = run_cli(env, tree)
                time.sleep(0.5)  # the job's child is reaped by the worker: its CPU counted
                daemon_cpu = tree_cpu(pid) - daemon_before
                assert report["daemon"] == {"pid": pid, "clients": n + 2}, report["daemon"]
                changed.write_text(changed.read_text() + f"\n# edit {n} (--no-daemon)\n")
                one_wall, one_cpu, report = run_cli(env, tree, "--no-daemon")
                assert report["daemon"] is None
                rows.append((warm_wall, warm_cli + daemon_cpu, daemon_cpu, one_wall, one_cpu))
            large = large_runs(env, Path(tmp) / "large", large_layers, pid) if large_layers else []
        finally:
            stop_daemons(Path(tmp) / "rt")
    columns = [median([r[i] for r in rows]) for i in range(5)]
    import scale

    load = (load_before, os.getloadavg()[0])
    return DaemonCliReport(
        *columns, files=files, load=load, large=large, large_params=scale.large_params(large_layers)
    )


def table(r: DaemonCliReport) -> str:
    return "\n".join(
        [
            f"examples/ ({r.files} files), one changed     wall s   CPU s",
            f"warm worker daemon                         {r.warm_wall:7.2f} {r.warm_cpu:7.2f}"
            f"  (the daemon's: {r.warm_daemon_cpu:.2f})",
            f"--no-daemon (a worker of the run's own)    {r.one_off_wall:7.2f} {r.one_off_cpu:7.2f}",
            f"warm / --no-daemon, wall: {r.warm_wall / r.one_off_wall:.2f}  target: warm ≤ 1.5 s"
            f" ({'met' if r.warm_wall <= 1.5 else 'missed'}); load average {r.load[0]:.2f} → {r.load[1]:.2f}",
            *(
                f"large model ({r.large_params / 1e9:.2f}B params, meta), {x.how:<12} wall {x.wall:6.2f} s"
                f"  CPU {x.cpu:6.2f} s  of which the job {x.job:5.2f} s"
                for x in r.large
            ),
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--large-layers", type=int, default=24, help="scale.py's large model (0: not run)")
    args = parser.parse_args()
    print(table(measure_daemon_cli(args.repeat, args.large_layers)))


if __name__ == "__main__":
    main()
