"""Which torch versions the worker accepts: the oldest tested one and newer, never below."""

from __future__ import annotations

import re

import pytest

from exportlens.engine.process import MIN_TORCH, torch_too_old
from tests.paths import ROOT


@pytest.mark.parametrize("version", ["2.10.0", "2.10.0a0+git1234", "2.13.0+cpu", "2.15.0+cu128", "3.0.0"])
def test_supported_versions_are_accepted(version: str) -> None:
    assert torch_too_old(version) is None


@pytest.mark.parametrize("version", ["2.9.1", "2.1.0", "1.13.0+cu117"])
def test_older_versions_are_refused_with_the_reason(version: str) -> None:
    reason = torch_too_old(version)
    assert reason is not None and f"torch {version} is too old" in reason, reason
    assert ">= 2.10," in reason and "tested" in reason and "pip install 'torch>=2.10'" in reason


def test_the_oldest_supported_is_the_oldest_the_matrix_tests() -> None:

    matrix = (ROOT / "tools" / "versions.mk").read_text()
    line = next(x for x in matrix.splitlines() if x.startswith("TORCH_VERSIONS ?="))
    oldest = min(tuple(int(p) for p in v.split(".")[:2]) for v in line.split("=", 1)[1].split())
    assert oldest == MIN_TORCH


def test_unknown_versions_are_not_refused() -> None:
    assert torch_too_old(None) is None and torch_too_old("nightly") is None


def test_the_extension_refuses_the_same_torch_versions() -> None:
    """Its interpreter probe (extension/src/probe.ts) says "too old" before a server starts."""
    probe = (ROOT / "extension" / "src" / "probe.ts").read_text()
    match = re.search(r"export const MIN_TORCH: readonly \[number, number\] = \[(\d+), (\d+)\];", probe)
    assert match is not None, "MIN_TORCH is declared in probe.ts"
    assert (int(match.group(1)), int(match.group(2))) == MIN_TORCH
