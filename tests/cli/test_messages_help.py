"""`exportlens check --help` says the real defaults (issue 42, item 6): `--device`'s is the declared
one (`fake`, as docs/devices.md says), never argparse's "default None" of an option whose default
is pyproject.toml's, else the declaration's. Through the real CLI."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from exportlens.config.settings import Settings
from tests.paths import ROOT

pytestmark = pytest.mark.slow  # starts the CLI


def _help(command: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "exportlens", command, "--help"],
        cwd=ROOT / "server",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return " ".join(done.stdout.split())  # argparse wraps at the terminal's width


def test_the_device_default_is_the_declared_one() -> None:
    said = _help("check")
    device = Settings().device
    assert f"(default {device};" in said, said
    devices = (ROOT / "docs" / "devices.md").read_text(encoding="utf-8")
    assert re.search(rf"`{device}`[^.\n]*\(default\)|default[^.\n]*`{device}`", devices), (
        "the docs say another"
    )
    assert f"(default {Settings().meta_above_mb:g};" in said, said


def test_no_option_says_default_none() -> None:
    for command in ("check", "serve", "daemon"):
        assert "default None" not in _help(command), command
