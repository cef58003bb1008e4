"""A model's first call inside a training or generation loop (issue 40): checked on the inputs of the
loop's first pass, through the real worker, and torch itself agrees; the training step never runs.

The scripts (tests/realcode/loop_scripts.py and nanogpt_model.py: nanoGPT's train.py and model.py
in their shape, a DataLoader over a TensorDataset, a generation loop) write a marker file in their
training step.
Run as scripts (eagerly, torch.compile returning the model as is, so in seconds), they write it;
checked, they must not. Torch's verdict is read in the worker's torch on the same model and the
same first batch: `torch._dynamo.explain`, `torch.compile(fullgraph=True)`, `export`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from exportlens.discovery import discover
from exportlens.engine import Engine
from tests.conftest import WORKER_PYTHON, check, line_of
from tests.realcode.loop_scripts import (
    GENERATE,
    LOADER,
    NANOGPT_TRAIN,
    NANOGPT_TRAIN_NO_EVAL,
    STEPPED,
)
from tests.realcode.nanogpt_model import NANOGPT_MODEL
from tests.worker_torch import WorkerTorch, exec_source

pytestmark = pytest.mark.slow


def _run_as_script(path: str) -> None:
    """`python script.py` with torch.compile returning the model as is (eager, in seconds): it exits
    0 and its training step writes the marker."""
    eager = "import runpy, torch; torch.compile = lambda m, **_: m; "
    eager += f"runpy.run_path({path!r}, run_name='__main__')"
    python = WORKER_PYTHON or sys.executable
    done = subprocess.run([python, "-c", eager], cwd=Path(path).parent, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    marker = Path(path).parent / STEPPED
    assert marker.exists(), "the script's training step did not write its marker"
    marker.unlink()


def _loop_entries(source: str, path: str) -> list[list[int]]:
    (subject,) = discover(source, path).subjects
    return [entry for entry in subject.inputs["prelude"] if len(entry) == 3]


NANOGPT_TORCH = (
    exec_source(NANOGPT_MODEL, "model")
    + """
import torch
torch.manual_seed(0)
model = ns_model["GPT"](ns_model["GPTConfig"](n_layer=2, n_head=2, n_embd=16, block_size=8, bias=False,
                                              vocab_size=64, dropout=0.0)).eval()
X, Y = torch.randint(64, (2, 8)), torch.randint(64, (2, 8))
explained = torch._dynamo.explain(model)(X, Y)
result = [explained.graph_count, explained.graph_break_count]
"""
)


NANOGPT_LOOPS = {
    # nanoGPT's first call of the compiled model is `estimate_loss()`'s (run at iteration 0 of
    # `while True:`), in `for split` and `for k`, its batch from `get_batch(split)` in that body
    "as nanoGPT": (NANOGPT_TRAIN, ['for split in ["train", "val"]', "for k in range(eval_iters)"]),
    # without the evaluation: the training loop's own call, its batch from `get_batch("train")`
    "without its evaluation": (NANOGPT_TRAIN_NO_EVAL, ["while True:", "for micro_step in range("]),
}


@pytest.mark.parametrize("variant", sorted(NANOGPT_LOOPS))
async def test_nanogpt_train_script_is_checked_on_its_first_pass(
    engine: Engine, write, worker_torch: WorkerTorch, variant: str
) -> None:
    script, loops = NANOGPT_LOOPS[variant]
    write("model.py", NANOGPT_MODEL)
    path = write("train.py", script)
    source = Path(path).read_text(encoding="utf-8")
    assert [e[0] for e in _loop_entries(source, path)] == [line_of(path, loop) + 1 for loop in loops]
    result = await check(engine, path)
    (gpt,) = result.modules
    assert (gpt.name, gpt.inputs, gpt.status) == ("GPT", "compile-call", "compiled")
    assert gpt.compiled is not None
    assert (gpt.compiled["graphs"], gpt.compiled["breaks"]) == (1, 0)
    assert result.diagnostics == []
    assert not (Path(path).parent / STEPPED).exists(), "the check ran a training step"
    assert worker_torch.run(NANOGPT_TORCH) == [1, 0]  # torch: one graph, no break
    _run_as_script(path)


def _definitions(source: str, first: str, end: str) -> str:
    """The script's imports and its definitions from `first` to `end`: nothing that reads `__file__`."""
    imports = "".join(line + "\n" for line in source.splitlines() if line.startswith(("import", "from")))
    return imports + first + source.split(first, 1)[1].split(end, 1)[0]


LOADER_TORCH = (
    exec_source(_definitions(LOADER, "class Gate", "\ndataset = "), "train")
    + """
import torch
from torch.utils.data import DataLoader, TensorDataset
xb, yb = next(iter(DataLoader(TensorDataset(torch.randn(12, 8), torch.randn(12, 4)), batch_size=3)))
try:
    torch.compile(ns_train["Gate"](), fullgraph=True, backend="eager")(xb)
    result = None
except torch._dynamo.exc.Unsupported as refused:
    result = [type(refused).__name__, "Data-dependent branching" in str(refused)]
"""
)


async def test_a_dataloader_loop_finds_the_refusal_only_the_loop_reaches(
    engine: Engine, write, worker_torch: WorkerTorch
) -> None:
    """`for xb, yb in loader:` in `for epoch in range(2):`: the first batch of the DataLoader feeds
    the compiled Gate, whose `if h.sum() > 0` torch refuses with `fullgraph=True`; guessed inputs
    would only ever have said it as information."""
    path = write("train.py", LOADER)
    assert [e[0] for e in _loop_entries(Path(path).read_text(encoding="utf-8"), path)] == [
        line_of(path, "for epoch in range(2)") + 1,
        line_of(path, "for xb, yb in loader") + 1,
    ]
    result = await check(engine, path)
    (gate,) = result.modules
    assert (gate.name, gate.inputs) == ("Gate", "compile-call")
    found = [(d.code, d.severity, d.range.start.line) for d in result.diagnostics]
    assert found == [("compile-graph-break-fullgraph", "error", line_of(path, "if h.sum() > 0"))]
    assert not (Path(path).parent / STEPPED).exists(), "the check ran a training step"
    assert worker_torch.run(LOADER_TORCH) == ["Unsupported", True]
    _run_as_script(path)


GENERATE_TORCH = (
    exec_source(_definitions(GENERATE, "block_size, vocab", "\ndef prompts"), "generate")
    + """
import torch
ids = torch.randint(32, (1, 3))
ep = torch.export.export(ns_generate["TinyLM"]().eval(), (ids,))
result = [list(ep.module()(ids).shape)]
"""
)


async def test_a_generation_loop_exports_on_the_first_prompt_and_stops_at_the_call(
    engine: Engine, write, worker_torch: WorkerTorch
) -> None:
    """`for prompt in prompts():` (a generator of the script) then `for n in range(4):`: the export
    call gets the first prompt's ids; the sampling after it, and the second pass, never run."""
    path = write("generate.py", GENERATE)
    assert [e[0] for e in _loop_entries(Path(path).read_text(encoding="utf-8"), path)] == [
        line_of(path, "for prompt in prompts()") + 1,
        line_of(path, "for n in range(4)") + 1,
    ]
    result = await check(engine, path)
    (lm,) = result.modules
    assert (lm.name, lm.inputs, lm.status) == ("TinyLM", "export-call", "exported")
    assert result.diagnostics == []
    assert not (Path(path).parent / STEPPED).exists(), "the check ran what follows the call"
    assert worker_torch.run(GENERATE_TORCH) == [[1, 32]]
    _run_as_script(path)
