"""Through the real server: library code is not checked, pyproject.toml's [tool.exportlens]
configures the check, a bad value is shown on its line, ignore comments silence a finding."""

from __future__ import annotations

from pathlib import Path

import torch
from lsprotocol import types

from .conftest import Session, line_of

STAMPED = """
import time

import torch


class Stamped(torch.nn.Module):
    def forward(self, x):
        return x + time.time()


torch.export.export(Stamped(), (torch.randn(4),))
"""
BRANCHES = """
import torch


class Gate(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:  # exportlens: ignore[data-dependent-branch]
            return x + 1
        return x - 1


class Gate2(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:  # exportlens: ignore[no-such-code]
            return x + 1
        return x - 1


torch.export.export(Gate().eval(), (torch.randn(3),))
torch.export.export(Gate2().eval(), (torch.randn(3),))
"""


async def test_torchs_own_linear_gets_no_diagnostic_no_lens_and_no_job(server: Session) -> None:
    linear = Path(torch.__file__).parent / "nn" / "modules" / "linear.py"
    await server.open("canary_stamped.py", STAMPED)
    before = (await server.command("exportlens.status"))["jobsSent"]
    assert before > 0, "the canary: a file of the workspace does send jobs"
    found = await server.open_uri(linear.resolve().as_uri(), linear.read_text(encoding="utf-8"))
    assert found == []
    assert await server.lenses(linear.resolve().as_uri()) == []
    assert (await server.command("exportlens.status"))["jobsSent"] == before


async def test_pyproject_mode_strict_without_editor_settings(server: Session) -> None:
    server.write("strictproj/pyproject.toml", '[tool.exportlens]\nmode = "strict"\n')
    found = await server.open("strictproj/stamped.py", STAMPED)
    assert [d.code for d in found] == ["untraceable-call"], found
    server.write("plainproj/pyproject.toml", '[project]\nname = "plain"\n')
    plain = await server.open("plainproj/stamped.py", STAMPED)
    assert "untraceable-call" not in [d.code for d in plain], "non-strict bakes time.time() in"


async def test_a_bad_value_is_an_error_on_its_pyproject_line(server: Session) -> None:
    uri, _ = server.write(
        "badproj/pyproject.toml", '[project]\nname = "bad"\n\n[tool.exportlens]\nmode = "fast"\n'
    )
    await server.open("badproj/model.py", "x = 1\n")
    await server.until(lambda: any(p.uri == uri and p.diagnostics for p in server.record.published))
    (error,) = next(p for p in reversed(server.record.published) if p.uri == uri).diagnostics
    assert (error.code, error.range.start.line, error.severity) == (
        "config-error",
        4,
        types.DiagnosticSeverity.Error,
    )
    assert "mode: 'fast' is not allowed" in error.message and '"strict"' in error.message


async def test_ignore_comments_and_exclude_in_the_editor(server: Session) -> None:
    found = await server.open("ignoring.py", BRANCHES)
    assert [(d.code, d.range.start.line) for d in found] == [
        ("data-dependent-branch", line_of(BRANCHES, "no-such-code")),
        ("unknown-ignore-code", line_of(BRANCHES, "no-such-code")),
    ]
    server.write("exclproj/pyproject.toml", '[tool.exportlens]\nexclude = ["gen/**"]\n')
    uri, text = server.write("exclproj/gen/model.py", BRANCHES)
    assert await server.open_uri(uri, text) == []
    assert await server.lenses(uri) == []
