"""Export refusals end to end: real exports in the real worker (its torch), both tracers.

Every module of one file is checked in one run per mode, so each case costs
one job; each test asserts code, line, columns of the culprit and severity, the same on every
torch version but where torch itself differs (tests/torch_versions.py).
"""

from __future__ import annotations

import pytest

from exportlens.engine import Engine
from exportlens.findings import FileResult, Finding
from tests.conftest import check
from tests.paths import DATA
from tests.torch_versions import expected_for, version_of

CASES = DATA / "refusals.py"

# module -> {mode: (code, text of the culprit expression on its line, or None for the export call)}
# A missing mode means: that tracer accepts the module (no error).
EXPECTED: dict[str, dict[str, tuple[str, str | None]]] = {
    "Branch": {"both": ("data-dependent-branch", "x.sum() > 0")},
    "AnyBranch": {"both": ("data-dependent-branch", "(x < 0).any()")},
    "ItemIf": {"both": ("data-dependent-guard", "x.max().item() > 0")},
    "NonzeroIf": {"both": ("data-dependent-guard", "nz.shape[0] > 3")},
    "ReshapeDim": {"both": ("dim-specialized", "x.reshape(8, 16)")},
    "CompareDim": {"both": ("dim-specialized", "x.shape[0] == 8")},
    "NarrowDim": {"both": ("dim-range-narrowed", "x.shape[0] > 16")},
    "ShareDims": {"both": ("dims-must-be-equal", "x * y")},
    "StaticPartner": {"both": ("dim-static-partner", "x - y")},
    "TinyExample": {"both": ("dim-example-too-small", None)},
    "WrongKey": {"both": ("dynamic-shapes-invalid", None)},
    "OutOfRange": {"both": ("example-outside-dim-range", None)},
    "OpenFile": {"strict": ("unsupported-builtin", "open(__file__)")},
    "TimeCall": {"strict": ("untraceable-call", "time.time()")},
    "RandomCall": {"strict": ("untraceable-call", "random.random()")},
    "SeedCall": {"strict": ("untraceable-call", "torch.manual_seed(0)")},
    "JsonCall": {"strict": ("unsupported-python", "json.dumps([1])")},
    "FormatTensor": {"strict": ("observed-exception", 'len(f"{x}")')},
    "HashTensor": {"strict": ("observed-exception", "hash(x) % 2")},
    "DeepCopy": {"both": ("tensor-deepcopy", "copy.deepcopy(x)")},
    "NumpyCall": {"non-strict": ("tensor-numpy", "x.numpy()")},
    "FloatCall": {"non-strict": ("tensor-to-python-scalar", "float(x.sum())")},
    "DataPtr": {
        "non-strict": ("tensor-data-ptr", "x.data_ptr()"),
        "strict": ("observed-exception", "x.data_ptr() % 2"),
    },
    "AssertTensor": {"non-strict": ("tensor-assert", "(x > -100).all()")},
    "CondDtype": {"both": ("cond-branch-mismatch", "torch.cond(x.sum() > 0, _sin, _positive, (x,))")},
    "CondRank": {"both": ("cond-branch-mismatch", "torch.cond(x.sum() > 0, _sin, _total, (x,))")},
    "CondCount": {"both": ("cond-branch-mismatch", "torch.cond(x.sum() > 0, _two, _one, (x,))")},
    "CondAlias": {"both": ("cond-branch-aliases-input", "torch.cond(x.sum() > 0, _same, _sin, (x,))")},
    "CustomOp": {"both": ("missing-fake-kernel", "torch.ops.exportlens_test.double(x)")},
    "CustomOpNoFake": {"both": ("missing-fake-kernel", "triple(x)")},
    "UserRaise": {"both": ("user-exception", 'raise ValueError("negative sizes are not allowed")')},
}

# What of the export call a finding without a culprit line marks.
CALL_PART = {
    "dim-example-too-small": "tiny",
    "dynamic-shapes-invalid": '{"z": {0: batch}}',
    "example-outside-dim-range": "(torch.randn(10),)",
}

_results: dict[str, FileResult] = {}


async def _checked(engine: Engine, mode: str) -> FileResult:
    if mode not in _results:
        _results[mode] = await check(engine, str(CASES), mode=mode)
    return _results[mode]


def _errors(result: FileResult, module: str) -> list[Finding]:
    return [d for d in result.diagnostics if d.module == module and d.severity == "error"]


def _expected(engine: Engine, module: str, mode: str) -> tuple[str, str | None] | None:
    cases = EXPECTED[module]
    return expected_for(module, mode, version_of(engine), cases.get(mode) or cases.get("both"))


def _span(needle: str) -> tuple[int, int, int]:
    for number, line in enumerate(CASES.read_text(encoding="utf-8").splitlines()):
        if needle in line and not line.lstrip().startswith("#"):
            start = line.index(needle)
            return number, start, start + len(needle)
    raise AssertionError(needle)


@pytest.mark.parametrize("mode", ["non-strict", "strict"])
@pytest.mark.parametrize("module", sorted(EXPECTED))
async def test_refusal(engine: Engine, module: str, mode: str) -> None:
    result = await _checked(engine, mode)
    errors = _errors(result, module)
    expected = _expected(engine, module, mode)
    if expected is None:
        assert errors == [], [(d.code, d.message) for d in errors]
        return
    code, needle = expected
    assert [d.code for d in errors] == [code], [(d.code, d.message) for d in errors]
    (finding,) = errors
    assert finding.severity == "error"
    assert finding.path == str(CASES)
    assert finding.mode == mode
    tracer = "strict export (dynamo)" if mode == "strict" else "non-strict export (fake tensors)"
    if code != "user-exception":
        assert tracer in finding.message.lower()
    assert "Fix:" in finding.message
    assert finding.url
    if needle is None:  # points into the module's export call
        line, start, end = _span(f"{module}(),")
        where = CALL_PART[code]
        text = CASES.read_text(encoding="utf-8").splitlines()[line]
        begin = text.index(where, start)
        got = (finding.range.start.line, finding.range.start.character, finding.range.end.character)
        assert got == (line, begin, begin + len(where)), finding.message
        return
    line, start, end = _span(needle)
    got = (finding.range.start.line, finding.range.start.character, finding.range.end.character)
    assert got == (line, start, end), (finding.message, needle)
    assert any("checked from here" in r.message for r in finding.related)


async def test_fix_data(engine: Engine) -> None:
    result = await _checked(engine, "non-strict")
    (reshape,) = _errors(result, "ReshapeDim")
    assert reshape.fix and reshape.fix["dim"] == "batch" and reshape.fix["suggested"] == ["batch = 8"]
    (narrow,) = _errors(result, "NarrowDim")
    assert narrow.fix and narrow.fix["suggested"] == ["batch = Dim('batch', max=16)"]
    (share,) = _errors(result, "ShareDims")
    assert share.fix and share.fix["suggested"] == ["by = bx"]
    (tiny,) = _errors(result, "TinyExample")
    assert "≥ 2" in tiny.message and "torch suggests" not in tiny.message
    (branch,) = _errors(result, "Branch")
    assert branch.fix and branch.fix["expression"] == "x.sum() > 0"
    (op,) = _errors(result, "CustomOp")
    assert op.fix and "exportlens_test.double" in str(op.fix["op"])
    (raised,) = _errors(result, "UserRaise")
    assert "not an export refusal" in raised.message.lower()


async def test_graph_break_urls(engine: Engine) -> None:
    result = await _checked(engine, "strict")
    (branch,) = _errors(result, "Branch")
    assert branch.url and branch.url.endswith("/gb/gb0170.html")
    (opened,) = _errors(result, "OpenFile")
    assert opened.url and opened.url.endswith("/gb/gb0059.html")
