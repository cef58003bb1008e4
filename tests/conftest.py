"""Shared fixtures: one real warm worker for the session, and a way to check source text."""

from __future__ import annotations

import os
import tempfile
import textwrap
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine, EngineOptions
from exportlens.engine.daemon_stop import stop_daemons
from exportlens.findings import FileResult, Finding

from .slow import (  # noqa: F401 - the `slow` marker's hooks (tests/slow.py)
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_runtest_call,
    pytest_runtest_setup,
)
from .worker_torch import WorkerTorch

# Results stored between sessions (persist/) go to a folder of this run only, for every server and
# CLI the tests start: no test sees what an earlier run, or the user, left in ~/.cache.
_CACHE = tempfile.TemporaryDirectory(prefix="exportlens-test-cache-")
os.environ["EXPORTLENS_CACHE_DIR"] = _CACHE.name
# Worker daemons the CLI starts (docs/daemon.md) listen there too, and are stopped at the end.
_DAEMONS = os.path.join(_CACHE.name, "run")
os.environ["EXPORTLENS_RUNTIME_DIR"] = _DAEMONS


@pytest.fixture(scope="session", autouse=True)
def no_daemon_left() -> Iterator[None]:
    yield
    stop_daemons(_DAEMONS)


# The worker's interpreter: this one, unless EXPORTLENS_TEST_PYTHON names another (tools/versions.mk
# runs the suites against other torch versions so; pytest itself always runs here).
WORKER_PYTHON: str | None = os.environ.get("EXPORTLENS_TEST_PYTHON") or None


@pytest_asyncio.fixture(scope="session")
async def engine() -> AsyncIterator[Engine]:
    engine = Engine(EngineOptions(python=WORKER_PYTHON, timeout=60.0))
    await engine.worker()
    yield engine
    await engine.close()


@pytest.fixture(scope="session")
def worker_torch() -> Iterator[WorkerTorch]:
    """The worker's torch for a test's own torch code (see tests/worker_torch.py)."""
    runner = WorkerTorch(WORKER_PYTHON)
    yield runner
    runner.close()


@pytest.fixture
def write(tmp_path: Path):  # type: ignore[no-untyped-def]
    """write("name.py", source) -> absolute path of a dedented file in a temp workspace."""

    def _write(name: str, source: str) -> str:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
        return str(path)

    return _write


async def check(engine: Engine, path: str, mode: str | None = None, source: str | None = None) -> FileResult:
    roots = [str(Path(path).parent)]
    return await check_file(engine, path, source, CheckOptions(mode=mode, roots=roots))


def only(result: FileResult, code: str) -> Finding:
    matches = [d for d in result.diagnostics if d.code == code]
    assert len(matches) == 1, [(d.code, d.message) for d in result.diagnostics]
    return matches[0]


def line_of(path: str, needle: str) -> int:
    """0-based line of the first line containing `needle`."""
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines()):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


@pytest.fixture
def runtime() -> Iterator[Path]:
    """A short runtime folder for worker daemons (socket paths are limited to ~100 bytes); no
    daemon outlives it (the daemon tests of tests/engine and tests/lsp)."""
    with tempfile.TemporaryDirectory(prefix="eld-") as folder:
        runtime = Path(folder) / "rt"
        try:
            yield runtime
        finally:
            stop_daemons(runtime)
