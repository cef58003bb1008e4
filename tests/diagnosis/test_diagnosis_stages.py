"""Failures outside forward's tracing, failures in other files, and clean modules (real worker)."""

from __future__ import annotations

from pathlib import Path

import pytest

from exportlens.engine import Engine
from exportlens.findings import Finding
from tests.conftest import check
from tests.paths import DATA

DATA = DATA
MODES = ["non-strict", "strict"]


def _span(path: Path, needle: str) -> tuple[int, int, int]:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if needle in line:
            start = line.index(needle)
            return number, start, start + len(needle)
    raise AssertionError(needle)


def _at(finding: Finding) -> tuple[str, int, int, int]:
    r = finding.range
    return finding.path, r.start.line, r.start.character, r.end.character


def _errors(diagnostics: list[Finding], module: str) -> list[Finding]:
    return [d for d in diagnostics if d.module == module and d.severity == "error"]


@pytest.mark.parametrize("mode", MODES)
async def test_stage_failures(engine: Engine, mode: str) -> None:
    path = DATA / "stages.py"
    result = await check(engine, str(path), mode=mode)
    expected = {
        "BadInputs": ("inputs-error", "torch.randn(3, 4) @ torch.randn(3, 4)"),
        "BadInit": ("module-init-error", 'raise ValueError("layer sizes do not match")'),
        "Exits": ("user-exit", "sys.exit(3)"),
        "Interrupted": ("user-exit", "raise KeyboardInterrupt"),
        "Huge": ("out-of-memory", "torch.empty(1 << 40)"),
        "NoMemory": ("out-of-memory", "raise MemoryError()"),
    }
    for module, (code, needle) in expected.items():
        said = [d for d in result.diagnostics if d.module == module]
        assert [d.code for d in said] == [code], (module, [(d.code, d.message) for d in said])
        assert _at(said[0]) == (str(path), *_span(path, needle)), (module, said[0].message)
        # Inputs or a module ExportLens could not build: torch said nothing, never an error (issue 40).
        own = code in ("inputs-error", "module-init-error")
        assert said[0].severity == ("information" if own else "error"), (module, said[0].severity)
    # Non-strict runs forward, which exits; dynamo refuses to trace `sys.exit` at all.
    (exits,) = _errors(result.diagnostics, "ExitsInForward")
    assert exits.code == ("user-exit" if mode == "non-strict" else "untraceable-call")
    assert _at(exits) == (str(path), *_span(path, 'sys.exit("stop")'))


@pytest.mark.parametrize("mode", MODES)
async def test_import_error_points_at_raising_line(engine: Engine, mode: str) -> None:
    path = DATA / "import_error.py"
    result = await check(engine, str(path), mode=mode)
    (finding,) = [d for d in result.diagnostics if d.severity == "error"]
    assert finding.code == "import-error"
    assert _at(finding) == (str(path), *_span(path, 'SIZES["large"]'))
    assert "KeyError" in finding.message


@pytest.mark.parametrize("mode", MODES)
async def test_helper_in_other_file(engine: Engine, mode: str) -> None:
    path = DATA / "workspace" / "chain.py"
    helpers = DATA / "workspace" / "helpers.py"
    result = await check(engine, str(path), mode=mode)
    (helper,) = _errors(result.diagnostics, "UsesHelper")
    assert helper.code == "data-dependent-branch"
    assert _at(helper) == (str(helpers), *_span(helpers, "x.sum() > 0"))
    chain = [(Path(r.path).name, r.range.start.line) for r in helper.related]
    assert ("chain.py", _span(path, "return scale(y)")[0]) in chain
    assert ("helpers.py", _span(helpers, "return gate(x) + 1")[0]) in chain
    assert chain[0][0] == "chain.py"  # the module / export call comes first

    (nested,) = _errors(result.diagnostics, "Outer")
    assert nested.code == "data-dependent-guard"
    assert _at(nested) == (str(helpers), *_span(helpers, "x.max().item() > 1"))
    chain = [(Path(r.path).name, r.range.start.line) for r in nested.related]
    assert ("chain.py", _span(path, "return self.middle(x + 1)")[0]) in chain
    assert ("chain.py", _span(path, "return self.inner(x) * 3")[0]) in chain


@pytest.mark.parametrize("mode", MODES)
async def test_clean_modules_have_no_errors(engine: Engine, mode: str) -> None:
    result = await check(engine, str(DATA / "clean.py"), mode=mode)
    assert [d for d in result.diagnostics if d.severity == "error"] == []
    assert {m.name: m.status for m in result.modules} == {
        "MLP": "exported",
        "CNN": "exported",
        "Attention": "exported",
        "GoodCond": "exported",
    }
