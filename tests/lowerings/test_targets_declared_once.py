"""A lowering target is declared once (`worker/wire/targets.py`): the worker's table, the server's
names, the labels and docs/targets.md's table follow the record; a name the worker does not know
is its own internal failure, never a silent skip."""

from __future__ import annotations

from exportlens import lowerings
from exportlens.worker.core.budget import Budget
from exportlens.worker.lowering import MODULES, lower
from exportlens.worker.wire.targets import TARGETS
from tests.paths import ROOT

LOWERING_DIR = ROOT / "server/exportlens/worker/lowering"


def docs_table() -> dict[str, list[str]]:
    lines = (ROOT / "docs/targets.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("| target | runs | needs | codes |") + 2
    rows: dict[str, list[str]] = {}
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        rows[cells[0].strip("`")] = cells[1:]
    return rows


def test_every_target_module_exists_and_every_module_is_a_target() -> None:
    for target in TARGETS:
        if target.module is not None:
            assert (LOWERING_DIR / f"{target.module.lstrip('.')}.py").is_file(), target
    checkers = {p.stem for p in LOWERING_DIR.glob("*.py") if "\ndef check(" in p.read_text(encoding="utf-8")}
    declared = {t.module.lstrip(".") for t in TARGETS if t.module}
    assert checkers == declared, "a lowering module without a record"
    assert set(MODULES) == {t.name for t in TARGETS if t.module}


def test_server_names_follow_the_record() -> None:
    assert lowerings.LOWERINGS == tuple(t.name for t in TARGETS)
    assert set(lowerings.ON_CHECK) | set(lowerings.ON_DEMAND) == set(lowerings.LOWERINGS)
    assert all(lowerings.label(t.name) == t.label for t in TARGETS)
    assert lowerings.job_timeout(["onnx"], 30.0) == 30.0
    assert lowerings.job_timeout(["onnx", "aoti"], 30.0) == 600.0


def test_docs_table_lists_every_target_as_declared() -> None:
    rows = docs_table()
    assert list(rows) == [t.name for t in TARGETS], "docs/targets.md's table: one row per record, in order"
    for target in TARGETS:
        runs, needs, _codes = rows[target.name]
        assert ("on demand" in runs) == target.on_demand, f"{target.name}: runs {runs!r}"
        for package in target.needs:
            assert f"`{package}`" in needs, f"{target.name}: needs {package}"


def test_an_unknown_target_is_an_internal_failure_not_a_skip() -> None:
    (result,) = lower(["tflite"], None, None, "model.py", Budget(10.0))
    assert result["target"] == "tflite" and not result["ok"]
    assert "no lowering named 'tflite'" in result.get("internal", "")
    assert lower(["export"], None, None, "model.py", Budget(10.0)) == []


def test_each_lowering_code_is_named_after_its_target() -> None:
    """`onnx-no-translation` is the onnx target's: a code's target is its prefix, one per code."""
    from exportlens.codes.lowerings import CODES as LOWERING_CODES
    from exportlens.diagnosis.lowerings import NOT_RUN

    for code in set(LOWERING_CODES) - {NOT_RUN}:
        owners = [t.name for t in TARGETS if t.module is not None and code.startswith(f"{t.name}-")]
        assert len(owners) == 1, f"{code}: of {owners or 'no target'}"
