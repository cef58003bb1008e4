"""torch's printed guards (as 2.10–2.15 print them in ShapeEnv guards and runtime asserts) read as
the Python a user writes."""

from __future__ import annotations

import pytest

from exportlens.diagnosis.sym_text import readable


@pytest.mark.parametrize(
    ("torch_text", "python"),
    [
        (
            "FloatTrueDiv(ToFloat((x.shape[2] // 14)) + 0.1, 4.0) == 1.025",
            "(float(x.shape[2] // 14) + 0.1) / 4.0 == 1.025",
        ),
        ("TruncToInt(ToFloat((x.shape[3] // 14)) + 0.1) == 6", "int(float(x.shape[3] // 14) + 0.1) == 6"),
        ("Eq(Mod(s0, 14), 0)", "(s0 % 14) == 0"),
        ("Max(1, FloorDiv(s0, 2)) <= 8", "max(1, s0 // 2) <= 8"),
        ("FloorDiv(s0 + 1, 2)", "(s0 + 1) // 2"),
        ("(x.shape[2]//32)*(x.shape[3]//32) + 1 == 5", "(x.shape[2]//32)*(x.shape[3]//32) + 1 == 5"),
        ("PythonMod(IntTrueDiv(s0, 3), s1)", "(s0 / 3) % s1"),
    ],
)
def test_torch_notation_reads_as_python(torch_text: str, python: str) -> None:
    assert readable(torch_text) == python


def test_what_it_cannot_read_is_left_as_torch_printed_it() -> None:
    assert readable("FloorDiv(s0, ") == "FloorDiv(s0, "
    assert readable("Max(s0)") == "Max(s0)"
