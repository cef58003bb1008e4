"""The scheduler's decision (check/plan.py), pure: which modules a check exports, in which order."""

from __future__ import annotations

from pathlib import Path

from exportlens.check import CheckOptions
from exportlens.check.keys import document_keys
from exportlens.check.plan import plan, plan_file
from exportlens.check.sites import SiteIndex
from exportlens.discovery import discovery_of
from exportlens.document import Document
from exportlens.findings import FileResult

SOURCE = """\
import torch


class A(torch.nn.Module):
    def example_inputs(self):
        return (torch.ones(3),)

    def forward(self, x):
        return x + 1


class B(torch.nn.Module):
    def example_inputs(self):
        return (torch.ones(3),)

    def forward(self, x):
        return x * 2


class C(torch.nn.Module):
    def forward(self, x):
        return x - 1
"""
SALT = ("non-strict",)


def names(targets: list[object]) -> list[str]:
    return [t.name for t in targets]  # type: ignore[attr-defined]


def line(needle: str) -> int:
    return next(i for i, text in enumerate(SOURCE.splitlines()) if needle in text)


def test_forced_checks_every_module_even_when_cached() -> None:
    doc = Document("/w/m.py", SOURCE)
    keys = document_keys(doc, SALT)
    first, rest = plan(discovery_of(doc), keys, dict(keys), {"C": "/w/run.py"}, set(), force=True)
    assert (names(first), names(rest)) == ([], ["A", "B", "C"])


def test_nothing_changed_nothing_to_do() -> None:
    doc = Document("/w/m.py", SOURCE)
    keys = document_keys(doc, SALT)
    assert plan(discovery_of(doc), keys, dict(keys), {}, set(), force=False) == ([], [])


def test_an_edit_rechecks_only_the_changed_module_and_it_goes_first() -> None:
    old = Document("/w/m.py", SOURCE)
    new = Document("/w/m.py", SOURCE.replace("x * 2", "x * 3"))
    cached = document_keys(old, SALT)
    first, rest = plan(discovery_of(new), document_keys(new, SALT), cached, {}, {line("x * 2")}, force=False)
    assert (names(first), names(rest)) == (["B"], [])


def test_touched_modules_first_then_the_ones_without_results() -> None:
    doc = Document("/w/m.py", SOURCE)
    keys = document_keys(doc, SALT)
    cached = {"A": keys["A"]}
    first, rest = plan(discovery_of(doc), keys, cached, {}, {line("x - 1")}, force=False)
    assert (names(first), names(rest)) == (["C"], ["B"])


def test_a_module_checked_through_another_files_export_call_waits_for_a_save() -> None:
    doc = Document("/w/m.py", SOURCE)
    keys = document_keys(doc, SALT)
    first, rest = plan(discovery_of(doc), keys, {}, {"C": "/w/run.py"}, set(), force=False)
    assert (names(first), names(rest)) == ([], ["A", "B"])


def test_settings_that_change_results_change_every_key() -> None:
    doc = Document("/w/m.py", SOURCE)
    cached = document_keys(doc, SALT)
    first, rest = plan(discovery_of(doc), document_keys(doc, ("strict",)), cached, {}, set(), force=False)
    assert names(rest) == ["A", "B", "C"] and first == []


PARTS = """\
import torch


class Attention(torch.nn.Module):
    def forward(self, x):
        return x * 2


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = Attention()

    def example_inputs(self):
        return (torch.ones(2, 3),)

    def forward(self, x):
        return self.attn(x) + 1
"""


def test_a_part_goes_with_its_parent_whose_export_records_its_inputs() -> None:
    old = Document("/w/m.py", PARTS)
    for needle, edit in (("x * 2", "x * 3"), ("self.attn(x) + 1", "self.attn(x) + 2")):
        new = Document("/w/m.py", PARTS.replace(needle, edit))
        changed = next(i for i, text in enumerate(PARTS.splitlines()) if needle in text)
        first, rest = plan(
            discovery_of(new), document_keys(new, SALT), document_keys(old, SALT), {}, {changed}, False
        )
        assert (sorted(names(first)), rest) == (["Attention", "Block"], []), needle


def test_a_file_reached_through_a_package_init_is_placed_on_the_script(tmp_path: Path) -> None:
    """SAM's layout: the script imports the package, whose `__init__` imports the encoder, which
    imports `common.py`: common's classes are parts of what the script exports, checked there."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .encoder import Encoder\n")
    (pkg / "encoder.py").write_text(
        "import torch\nfrom .common import Mlp\n\n\nclass Encoder(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.mlp = Mlp(4)\n\n"
        "    def forward(self, x):\n        return self.mlp(x)\n"
    )
    common = pkg / "common.py"
    common.write_text(
        "import torch\n\n\nclass Mlp(torch.nn.Module):\n    def __init__(self, width):\n"
        "        super().__init__()\n        self.fc = torch.nn.Linear(width, width)\n\n"
        "    def forward(self, x):\n        return self.fc(x)\n"
    )
    script = tmp_path / "export_it.py"
    script.write_text(
        "import torch\nfrom pkg import Encoder\n\ntorch.export.export(Encoder(), (torch.randn(2, 4),))\n"
    )
    options = CheckOptions(mode="non-strict", roots=[str(tmp_path)])
    planned = plan_file(str(common), options, SiteIndex(), str(tmp_path))
    assert not isinstance(planned, FileResult)
    assert dict(planned.placement.parents) == {"Mlp": str(script)}
