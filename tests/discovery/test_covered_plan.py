"""covered.py's plan, pure (no worker): which jobs wait, which modules go together, how a class an
export reported is named. The same plan through the real worker: test_covered.py."""

from __future__ import annotations

from exportlens.check.covered import exported_class, held_back, with_exporters
from exportlens.discovery import discover
from exportlens.engine import JobOutcome

SOURCE = """
import torch
import torch.nn as nn
from unet import UNet


class Guessed(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return self.fc(x)


class Own(nn.Module):
    def example_inputs(self):
        return (torch.ones(3),)

    def forward(self, x):
        return x + 1


if __name__ == "__main__":
    model = UNet(3, 1)
    torch.export.export(model, (torch.randn(1, 3, 32, 32),))
    torch.export.export(model, (torch.randn(2, 3, 32, 32),), dynamic_shapes=({0: torch.export.Dim("b")},))
"""


def _outcome(root: str) -> JobOutcome:
    tree = {"root": {"class": root, "file": "/w/unet.py"}, "parts": []}
    return JobOutcome.from_wire({"status": "exported", "tree": tree})  # type: ignore[typeddict-item]


def test_a_second_export_of_a_class_is_not_said_to_export_another() -> None:
    subjects = {t.name: t for t in discover(SOURCE).subjects}
    assert set(subjects) == {"Guessed", "Own", "UNet", "UNet@27"}
    assert exported_class(subjects["UNet"], _outcome("UNet")) is None
    assert exported_class(subjects["UNet@27"], _outcome("UNet")) is None  # not "`UNet` (exported as ...)"
    assert exported_class(subjects["UNet"], _outcome("UNetLite")) == "UNetLite"


def test_guesses_wait_for_real_inputs_and_go_with_them() -> None:
    subjects = discover(SOURCE).subjects
    jobs = [(t, None) for t in subjects if t.inputs_kind != "none"]
    assert [t.name for t, _ in held_back(jobs)] == ["Guessed"]
    alone = [t for t in subjects if t.name == "Guessed"]
    assert {t.name for t in with_exporters(alone, subjects)} == {"Guessed", "Own", "UNet", "UNet@27"}
    # a file without real inputs: nothing waits
    assert held_back([(t, None) for t in alone]) == []
