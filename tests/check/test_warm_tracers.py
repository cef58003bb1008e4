"""The CLI's worker warms up only the tracers its jobs use (check/warm_tracers.py): the default
mode's non-strict jobs do not wait for dynamo's warm-up; where a strict job may come, both."""

from __future__ import annotations

import pytest

from exportlens.check.warm_tracers import warm_tracers
from exportlens.document import Document

CALL = """
import re
import torch

pattern = re.compile("x")
torch.export.export(Net(), (torch.ones(2),){extra})
"""


def tracers(extra: str, mode: str | None = None, elsewhere: bool = False) -> tuple[str, ...]:
    return warm_tracers([(Document("/w/m.py", CALL.format(extra=extra)), mode, elsewhere)])


@pytest.mark.parametrize(
    ("extra", "mode", "expected"),
    [
        ("", None, ("non-strict",)),  # the default: the call's strict=, else non-strict
        (", strict=False", None, ("non-strict",)),
        (", strict=True", None, ("non-strict", "strict")),
        (", strict=STRICT", None, ("non-strict", "strict")),  # not read here: may be strict
        (")\ncompiled = torch.compile(Net()", None, ("non-strict", "strict")),  # dynamo too
        ("", "non-strict", ("non-strict",)),
        ("", "strict", ("strict",)),
        ("", "both", ("non-strict", "strict")),
    ],
)
def test_the_tracers_of_the_files_jobs(extra: str, mode: str | None, expected: tuple[str, ...]) -> None:
    assert tracers(extra, mode) == expected


def test_a_module_checked_through_another_files_call_may_be_strict() -> None:
    assert tracers("", None, elsewhere=True) == ("non-strict", "strict")


def test_a_file_that_does_not_parse_adds_nothing() -> None:
    broken = Document("/w/b.py", "torch.export.export(Net(), strict=True\n")
    assert warm_tracers([(broken, None, False)]) == ("non-strict",)
