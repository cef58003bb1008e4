"""The worker daemon's tests' fixtures (test_daemon.py, test_daemon_security.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .daemon_runs import CLEAN


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "model.py"
    path.write_text(CLEAN)
    return path
