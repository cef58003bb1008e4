"""A generated model file of many small modules, one with a data-dependent branch, and the
`__main__` block a user would write to export them all (bench/speed_rows.py's many-module row).

The small modules are scale.py's 40-line block, each with its own scale constant (so each is a
distinct module to the check's cache key); the branch module sits in the middle of the file, so the
refusal is neither the first nor the last thing an in-order check meets.
"""

from __future__ import annotations

from scale import SMALL

BRANCH = '''

class Branchy(nn.Module):
    """Skips its projection when the input's mean is not positive: a data-dependent branch."""

    def __init__(self, width: int = 32) -> None:
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.mean() > 0:  # torch.export refuses this line: it depends on the input's values
            return self.fc(x)
        return x

    def example_inputs(self) -> tuple[torch.Tensor]:
        return (torch.randn(4, 32),)
'''

MAIN = """

MODELS = [{names}]

if __name__ == "__main__":
    for cls in MODELS:
        model = cls().eval()
        torch.export.export(model, model.example_inputs())
"""


def class_names(count: int) -> list[str]:
    """The classes of a `count`-module file, in file order: `Branchy` in the middle."""
    names = [f"Model{i}" for i in range(count - 1)]
    names.insert((count - 1) // 2, "Branchy")
    return names


def many_source(count: int = 100) -> str:
    """The file's text: `count` module classes (one of them `Branchy`), then MODELS and `__main__`."""
    blocks = []
    for name in class_names(count):
        if name == "Branchy":
            blocks.append(BRANCH)
        else:
            i = name.removeprefix("Model")
            blocks.append(SMALL.replace("{i}", i).replace("{scale}", f"{1.0 + int(i) / 100:.2f}"))
    names = ", ".join(class_names(count))
    return "import torch\nfrom torch import nn\n" + "".join(blocks) + MAIN.format(names=names)
