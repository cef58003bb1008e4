"""A graph break's fix in a model file that another script compiles (issue 31, fixes/proof.py):
`train.py` does `from model import Net; m = torch.compile(Net()); m(x)`, the model file has no
compile call of its own. The break is found through that script (check/sites.py), and each fix is
proven through the same call: the script runs with the model file imported with the fix applied (the
model file alone has no inputs to prove it with: `Scale` needs its width). Through the real
server; applying a proven fix and saving removes the warning."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.compile.sources import NO_INDUCTOR, line_of
from tests.fixes.conftest import apply_edit, pick, proven, resolve, saved
from tests.lsp.conftest import Session

SCALE = (
    NO_INDUCTOR
    + """
class Scale(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        h = self.fc(x)
        top = h.abs().max().item()
        return h / (top + 1.0)
"""
)
TRAIN = """import torch
from cfx_far_model import Scale

model = torch.compile(Scale(8))
out = model(torch.randn(2, 8))
"""
# A training script's own way: built, placed, compiled by name, called in a loop under main()
TRAIN_PLACED = """import torch
from cfx_placed_model import Scale


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = Scale(8).to(device)
    model = torch.compile(model)
    for step in range(100):
        loss = model(torch.randn(2, 8, device=device)).sum()
        loss.backward()


if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize(("prefix", "train"), [("cfx_far", TRAIN), ("cfx_placed", TRAIN_PLACED)])
async def test_item_in_a_model_compiled_by_another_script_is_fixed_and_proven_there(
    server: Session, prefix: str, train: str
) -> None:
    server.write(f"{prefix}_train.py", train)
    before = await server.open(f"{prefix}_model.py", SCALE)
    uri, text = server.write(f"{prefix}_model.py", SCALE)
    line = line_of(SCALE, ".item()")
    assert [(d.code, d.range.start.line) for d in before] == [("compile-graph-break", line)]
    notes = [(Path(r.location.uri).name, r.message) for r in before[0].related_information or []]
    assert (f"{prefix}_train.py", "the call of the compiled model whose inputs were used") in notes, notes
    fix = pick(await proven(server, uri, line), "Capture `.item()` in the graph")
    assert fix.title.endswith("(no graph break there; matches eager)") and fix.is_preferred, fix.title
    new = apply_edit(text, (await resolve(server, fix)).edit, uri, 1)
    assert "torch._dynamo.config.capture_scalar_outputs = True\n" in new
    assert await saved(server, uri, f"{prefix}_model.py", new) == []


NESTED = (
    NO_INDUCTOR
    + """
class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        h = self.fc(x)
        print("block", h.shape)
        return torch.relu(h) * 2 + 1


class Stack(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
"""
)
TRAIN_STACK = """import torch
from cfx_far_stack import Stack

model = torch.compile(Stack(8, 2))
out = model(torch.randn(2, 8))
"""


async def test_a_break_in_a_part_of_the_compiled_module_is_fixed_through_the_script(server: Session) -> None:
    """The break is in `Block`, a part of `Stack`, which the other script compiles."""
    server.write("cfx_far_stack_train.py", TRAIN_STACK)
    before = await server.open("cfx_far_stack.py", NESTED)
    uri, text = server.write("cfx_far_stack.py", NESTED)
    line = line_of(NESTED, 'print("block"')
    assert [(d.code, d.range.start.line) for d in before] == [("compile-graph-break", line)]
    guard = pick(await proven(server, uri, line), "Run `print('block', h.shape)` only when not compiling")
    assert guard.title.endswith("(no graph break there; matches eager)") and guard.is_preferred, guard.title
    new = apply_edit(text, (await resolve(server, guard)).edit, uri, 1)
    assert await saved(server, uri, "cfx_far_stack.py", new) == []


STACK_OF_BLOCKS = """from torch import nn

from cfx_far3_blocks import Block


class Stack(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x
"""
TRAIN_STACK_OF_BLOCKS = TRAIN_STACK.replace("cfx_far_stack", "cfx_far3_model")


async def test_a_part_in_a_third_file_is_fixed_through_the_script_that_compiles_its_parent(
    server: Session,
) -> None:
    """`cfx_far3_blocks.py`'s `Block` is part of `cfx_far3_model.py`'s `Stack`, compiled and called
    by `cfx_far3_train.py`: the blocks file is checked through that script (its parent file, as for
    an export), and the fix proven there with `Stack` built of the fixed `Block`."""
    blocks = NESTED.split("\n\nclass Stack")[0] + "\n"
    server.write("cfx_far3_model.py", STACK_OF_BLOCKS)
    server.write("cfx_far3_train.py", TRAIN_STACK_OF_BLOCKS)
    before = await server.open("cfx_far3_blocks.py", blocks)
    uri, text = server.write("cfx_far3_blocks.py", blocks)
    line = line_of(blocks, 'print("block"')
    assert [(d.code, d.range.start.line) for d in before] == [("compile-graph-break", line)]
    guard = pick(await proven(server, uri, line), "Run `print('block', h.shape)` only when not compiling")
    assert guard.title.endswith("(no graph break there; matches eager)") and guard.is_preferred, guard.title
    new = apply_edit(text, (await resolve(server, guard)).edit, uri, 1)
    assert await saved(server, uri, "cfx_far3_blocks.py", new) == []
