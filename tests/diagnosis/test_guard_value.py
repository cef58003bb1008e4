"""Which recorded guard asks for a multiple (diagnosis/guard_value.py), as torch prints them."""

from __future__ import annotations

import pytest

from exportlens.diagnosis.guard_value import splits


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
