"""The worker daemon's tests' fixtures (test_daemon.py, test_daemon_security.py)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from exportlens.engine.daemon_stop import stop_daemons

from .daemon_runs import CLEAN


@pytest.fixture
def runtime() -> Iterator[Path]:
    """A short runtime folder (socket paths are limited to ~100 bytes); no daemon outlives it."""
    with tempfile.TemporaryDirectory(prefix="eld-") as folder:
        runtime = Path(folder) / "rt"
        try:
            yield runtime
        finally:
            stop_daemons(runtime)


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "model.py"
    path.write_text(CLEAN)
    return path
