"""The worker daemon (docs/daemon.md), through `exportlens check` as a user runs it: real daemons,
real workers, real torch; each test has its own runtime folder and stops what it started.
Its security: test_daemon_security.py."""

from __future__ import annotations

import asyncio
import json
import stat
from pathlib import Path
from typing import Any

import pytest

from exportlens.check import CheckOptions
from exportlens.check.jobs import make_job
from exportlens.discovery import discovery_of
from exportlens.engine import Engine, EngineOptions
from exportlens.engine.daemon_stop import daemon_running
from exportlens.reading import read_document
from tests.conftest import WORKER_PYTHON

from .daemon_runs import CLEAN, FAILING, check, gone, start, statuses, the_socket

pytestmark = pytest.mark.slow


def test_a_second_run_uses_the_first_runs_daemon(runtime: Path, model: Path) -> None:
    first = check(runtime, model)
    second = check(runtime, model)
    assert statuses(first) == statuses(second) == ["exported"], first["stderr"]
    assert first["daemon"]["pid"] == second["daemon"]["pid"], "the second run started a daemon of its own"
    assert (first["daemon"]["clients"], second["daemon"]["clients"]) == (1, 2)
    assert daemon_running(second["daemon"]["pid"]), "the daemon outlives the run"
    assert stat.S_IMODE(runtime.stat().st_mode) == 0o700
    assert stat.S_IMODE(the_socket(runtime).stat().st_mode) == 0o600


def test_no_daemon_starts_none(runtime: Path, model: Path) -> None:
    report = check(runtime, model, "--no-daemon")
    assert statuses(report) == ["exported"], report["stderr"]
    assert report["daemon"] is None
    assert not list(runtime.glob("*.sock")) if runtime.exists() else True


def test_an_idle_daemon_exits(runtime: Path, model: Path) -> None:
    report = check(runtime, model, "--daemon-idle", "1")
    assert gone(report["daemon"]["pid"]), "idle for 1 s: it exits"
    assert not list(runtime.glob("*.sock"))


def test_concurrent_runs_get_their_own_results(runtime: Path, tmp_path: Path) -> None:
    """Two runs at once, from cold: one daemon (started under the lock), each its own answers."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    clean, failing = tmp_path / "a" / "clean.py", tmp_path / "b" / "failing.py"
    clean.write_text(CLEAN)
    failing.write_text(FAILING)
    runs = [start(runtime, clean), start(runtime, failing)]
    reports = [json.loads(run.communicate(timeout=300)[0]) for run in runs]
    assert reports[0]["daemon"]["pid"] == reports[1]["daemon"]["pid"]
    assert sorted(r["daemon"]["clients"] for r in reports) == [1, 2]
    assert [f["path"] for f in reports[0]["files"]] == ["clean.py"]
    assert [f["path"] for f in reports[1]["files"]] == ["failing.py"]
    assert statuses(reports[0]) == ["exported"] and reports[0]["files"][0]["diagnostics"] == []
    assert [d["code"] for d in reports[1]["files"][0]["diagnostics"]][:1] == ["data-dependent-branch"]


READS_ITS_FOLDER = """
import os
import torch

# What a run's own worker lets user code see: the folder and environment of the run.
if open("name.txt").read() != os.environ["EXPORTLENS_TEST_NAME"]:
    raise RuntimeError("not the run's own folder or environment")


class Fine(torch.nn.Module):
    def forward(self, x):
        return x.relu()

torch.export.export(Fine(), (torch.ones(3),))
"""


def test_each_run_has_its_own_folder_and_environment(runtime: Path, tmp_path: Path) -> None:
    model = tmp_path / "model.py"
    model.write_text(READS_ITS_FOLDER)
    reports = []
    for name in ("first", "second"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "name.txt").write_text(name)
        reports.append(check(runtime, model, cwd=tmp_path / name, env={"EXPORTLENS_TEST_NAME": name}))
    assert reports[0]["daemon"]["pid"] == reports[1]["daemon"]["pid"]
    for report in reports:
        assert statuses(report) == ["exported"], report["files"][0]["diagnostics"]


SLOW = """
import time
import torch

time.sleep(1.0)  # each check of this file takes a second at least


class Slow(torch.nn.Module):
    def forward(self, x):
        return x.relu()

torch.export.export(Slow(), (torch.ones(3),))
"""


async def test_clients_are_served_in_turns(
    runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client with six jobs queued does not make another client's one job wait for all six."""
    monkeypatch.setenv("EXPORTLENS_RUNTIME_DIR", str(runtime))
    options = CheckOptions(roots=[str(tmp_path)])

    def job(name: str, source: str) -> Any:
        (tmp_path / name).write_text(source)
        doc = read_document(str(tmp_path / name))
        return make_job(doc, discovery_of(doc).subjects[0], False, options)

    engines = [Engine(EngineOptions(python=WORKER_PYTHON, daemon=True, warm_first=True)) for _ in range(2)]
    busy, other = engines
    finished: list[str] = []

    async def run(engine: Engine, label: str, source: str) -> str:
        outcome = await engine.run(job(f"{label}.py", source))
        finished.append(label)
        return outcome.status

    try:
        await asyncio.gather(*(engine.worker() for engine in engines))
        assert busy.daemon is not None and other.daemon is not None
        assert busy.daemon[0] == other.daemon[0], "one daemon for both"
        queued = [asyncio.create_task(run(busy, f"slow{n}", SLOW)) for n in range(6)]
        await asyncio.sleep(0.5)  # all six are with the daemon, two running
        statuses = await asyncio.gather(run(other, "quick", CLEAN), *queued)
    finally:
        await asyncio.gather(*(engine.close() for engine in engines))
    assert statuses == ["exported"] * 7
    # served in turns: the other client's job is the next to start once one of the two running ends
    assert finished.index("quick") <= 3, finished


def test_verbose_shows_the_daemons_worker_lines(runtime: Path, model: Path) -> None:
    """-v shows the worker's stderr as a run's own worker's (its warm-up line), and the log's path."""
    report = check(runtime, model, "-v")
    assert report["daemon"]["clients"] == 1, report["stderr"]
    assert "exportlens.worker: exportlens worker: warm-up done" in report["stderr"], report["stderr"]
    assert str(next(runtime.glob("*.log"))) in report["stderr"]
    quiet = check(runtime, model)
    assert "exportlens.worker" not in quiet["stderr"], "without -v the worker's lines are not shown"
