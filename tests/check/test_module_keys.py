"""Module keys (check/keys.py), pure: which edit re-exports which module, and which leaves it cached."""

from __future__ import annotations

from exportlens.check.keys import class_span, module_keys, subject_at, touched
from exportlens.discovery import discover

SOURCE = """\
import torch

SCALE = 2


def helper(x):
    return x * SCALE


class Rotary(torch.nn.Module):
    def forward(self, x):
        return x.flip(-1)


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rot = Rotary()

    def example_inputs(self):
        return (torch.ones(3),)

    def forward(self, x):
        return self.rot(x) + 1


class Other(torch.nn.Module):
    def example_inputs(self):
        return (torch.ones(3),)

    def forward(self, x):
        return helper(x)
"""
SALT = ("non-strict", None, True, True, 1024.0)


def keys(source: str, salt: tuple[object, ...] = SALT) -> dict[str, str]:
    return module_keys(source, discover(source, "/nowhere/model.py"), salt)


def changed(before: str, after: str) -> set[str]:
    old, new = keys(before), keys(after)
    assert set(old) == set(new), "the edit must not add or remove a module"
    return {name for name in old if old[name] != new[name]}


def test_every_module_has_a_key_and_the_same_text_has_the_same_keys() -> None:
    first = keys(SOURCE)
    assert set(first) == {"Rotary", "Block", "Other"}
    assert len(set(first.values())) == 3
    assert keys(SOURCE) == first  # a second parse of the same text hits the cache


def test_an_edit_inside_one_class_changes_its_key_only() -> None:
    assert changed(SOURCE, SOURCE.replace("return helper(x)", "return helper(x) - 1")) == {"Other"}


def test_a_class_a_module_is_built_from_is_part_of_its_key() -> None:
    # Block builds a Rotary: editing Rotary re-exports both, Other keeps its result
    assert changed(SOURCE, SOURCE.replace("x.flip(-1)", "x.flip(0)")) == {"Rotary", "Block"}


def test_imports_constants_and_helpers_are_in_every_key() -> None:
    assert changed(SOURCE, SOURCE.replace("SCALE = 2", "SCALE = 3")) == {"Rotary", "Block", "Other"}
    assert changed(SOURCE, SOURCE.replace("return x * SCALE", "return x + SCALE")) == {
        "Rotary",
        "Block",
        "Other",
    }
    assert changed(SOURCE, "import math\n" + SOURCE) == {"Rotary", "Block", "Other"}


def test_a_class_that_grows_re_exports_the_classes_below_it() -> None:
    grown = SOURCE.replace(
        "        return self.rot(x) + 1\n", "        y = self.rot(x)\n        return y + 1\n"
    )
    # Other's findings would sit one line lower: it is re-exported. (Rotary, above, is too
    # today: the blanked Block keeps its length in Rotary's text; only correctness is asserted.)
    assert {"Block", "Other"} <= changed(SOURCE, grown)


def test_the_same_edit_inside_a_line_count_keeps_the_classes_below() -> None:
    same_lines = SOURCE.replace("return self.rot(x) + 1", "return self.rot(x) + 2")
    # Rotary, a part of Block, is checked with the inputs Block gives it: Block's text is in its key
    assert changed(SOURCE, same_lines) == {"Block", "Rotary"}
    assert changed(SOURCE, SOURCE.replace("return helper(x)", "return helper(x) + 2")) == {"Other"}


def test_settings_that_change_results_are_in_every_key() -> None:
    old, new = keys(SOURCE), keys(SOURCE, ("strict", None, True, True, 1024.0))
    assert all(old[name] != new[name] for name in old)


def test_class_spans_and_the_module_at_a_line() -> None:
    source = "import torch\n\n\n@torch.no_grad\nclass M(torch.nn.Module):\n"
    source += "    def forward(self, x):\n        return x\n"
    found = discover(source, "/nowhere/m.py")
    (subject,) = found.subjects
    assert class_span(subject.node) == (3, 6)  # the decorator's line is the class's first
    assert subject_at(found, 3) is subject and subject_at(found, 6) is subject
    assert subject_at(found, 2) is None and subject_at(found, 0) is None
    assert touched(found, {0, 4, 6}) == {"M"}
    assert touched(found, {0, 1}) == set()
