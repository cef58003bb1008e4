"""Dim advice when torch suggests no fix (issue 13, item 5): minGPT's causal-mask slice makes torch
guard `seq != 32` inside a declared `seq <= 32`, and torch prints no "Suggested fixes". The advice
repeats no invented fix: it reads the range torch's own guard leaves (2 to 31) and says what to try,
each with its reason."""

from __future__ import annotations

from exportlens.check import CheckOptions, check_file
from exportlens.diagnosis.constraints import constraint
from exportlens.engine import Engine
from tests.realcode_expected import CORPUS

# torch 2.13's message for minGPT's dynamic export, as it prints it (no "Suggested fixes:").
MINGPT = (
    'Constraints violated (seq)! For more information, run with TORCH_LOGS="+dynamic".\n'
    "  - Not all values of seq = L['idx'].size()[1] in the specified range seq <= 32 satisfy the "
    "generated guard L['idx'].size()[1] != 32.\n"
)


def test_the_sizes_torchs_guard_leaves_are_read_from_its_message() -> None:
    kind = constraint(MINGPT)
    assert kind.code == "dim-range-narrowed" and kind.fix["suggested"] == []
    assert kind.fix["sizes_left"] == {"range": "seq <= 32", "min": 2, "max": 31, "declared": [2, 32]}
    # a guard that leaves no single run of sizes (`seq != 16` in 2..32), or no upper bound: nothing read
    assert "sizes_left" not in constraint(MINGPT.replace("!= 32", "!= 16")).fix
    assert "sizes_left" not in constraint(MINGPT.replace("range seq <= 32", "range seq >= 2")).fix


async def test_mingpt_advice_says_what_to_try_when_torch_suggests_nothing(engine: Engine) -> None:
    path = CORPUS / "mingpt" / "export_mingpt.py"
    options = CheckOptions(mode="non-strict", roots=[str(path.parent)], all_failures=False)
    result = await check_file(engine, str(path), None, options)
    (finding,) = [d for d in result.diagnostics if d.code == "dim-range-narrowed"]
    assert "torch suggests no fix" in finding.message
    assert '`seq = Dim("seq", max=31)`' in finding.message and "`Dim.AUTO`" in finding.message
    assert "torch suggests:" not in finding.message  # nothing of torch's is repeated: it said nothing
