"""The text report's advice: the proven fix in its place, or why none was (report/text.py)."""

from __future__ import annotations

from exportlens.report.text import said_fix

MESSAGE = (
    "A Python `if`/`while` decides on a tensor's values (`x.sum() > 0`). Non-strict export (fake tensors) "
    "refused `Net`. Fix: use `torch.cond(pred, true_fn, false_fn, (x,))` or a branchless "
    "`torch.where(...)`. torch suggests: torch._check(u0 > 0)."
)


def test_the_advice_is_replaced_by_the_proven_fix_or_why_none_was() -> None:
    assert said_fix(MESSAGE, None) == MESSAGE
    head = MESSAGE.partition(" Fix: ")[0]
    proven = said_fix(MESSAGE, {"fix": "Rewrite as torch.cond (exports; matches eager)"})
    assert (
        proven
        == f"{head} Fix (proven): Rewrite as torch.cond (exports; matches eager). torch suggests: "
        + ("torch._check(u0 > 0).")
    )
    none = said_fix(MESSAGE, {"fix": None, "refused": ["Rewrite as torch.cond (does not export: X)"]})
    assert none.startswith(f"{head} No fix proven: Rewrite as torch.cond (does not export: X). torch")
