"""Which recorded guard asks for a multiple (diagnosis/guard_value.py), as torch prints them."""

from __future__ import annotations

import pytest

from exportlens.diagnosis.guard_value import exact_at, passes, sizes_passing, splits


@pytest.mark.parametrize(
    ("expr", "factor", "asks"),
    [
        ("Eq(Mod(s0, 8), 0)", 8, True),  # a reshape into heads of 8
        ("Eq(s53, 16*((s53//16)))", 16, True),  # the last skip connection of a U-Net
        ("Eq((s53//8), 2*((s53//16)))", 16, True),  # its first: fails at 16k+8 .. 16k+15
        ("Eq(PythonMod(((s53//8)) - 2, 2), 0)", 16, True),  # torch 2.10's fourth pooling
        ("Eq(Mod(s53 - 2, 2), 0)", 16, False),  # torch 2.10's first pooling: only even
        ("Eq(PythonMod(((s53//2)) - 2, 2), 0)", 16, False),  # its second: a multiple of 4
        ("Ne((s0//2), 1)", 16, False),  # a bound, no multiple
    ],
)
def test_a_guard_asks_for_the_multiple_only_when_it_repeats_every_multiple(
    expr: str, factor: int, asks: bool
) -> None:
    assert splits(expr, factor) is asks


# EfficientNet's SAME padding (`math.ceil(ih / sh)`) as torch's message and the recorded site print it.
SAME_PADDING = "max(0, 1 + ((-1)*L['x'].size()[2]) + 2*math.ceil(L['x'].size()[2] / 2)) > 0."
SAME_PADDING_SITE = "Max(0, -s34 + 2*CeilToInt(IntTrueDiv(s34, 2)) + 1) > 0"
# DINOv2's position-table scale factor, a float from the size.
SCALE_FACTOR = "(((0.1 + torch.sym_float(L['x'].size()[2] // 14)) / 4.0)) == 1.025"


def test_guards_through_float_arithmetic_are_evaluated() -> None:
    assert all(passes(SAME_PADDING, size) is True for size in range(2, 300))
    as_215_prints_it = SAME_PADDING.replace("max(", "torch.sym_max(")
    assert all(passes(as_215_prints_it, size) is True for size in range(2, 300))
    assert [size for size in range(2, 200) if passes(SCALE_FACTOR, size)] == list(range(56, 70))
    assert sizes_passing(SAME_PADDING_SITE, 64) == list(range(1, 65))


def test_a_division_is_exact_at_multiples_of_its_divisor_only() -> None:
    assert [exact_at(SAME_PADDING, size) for size in (4, 5, 6, 7)] == [True, False, True, False]
    assert exact_at(SAME_PADDING_SITE, 10) is True and exact_at(SAME_PADDING_SITE, 11) is False
    assert exact_at("Eq(Mod(s0, 8), 0)", 3) is True  # no division at all
    assert exact_at("foo(s0) > 1", 4) is None  # a function the evaluator does not know
