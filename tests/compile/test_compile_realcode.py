"""Compile checks on public model code of the real-code corpus (tests/data/realcode/corpus/README.md):
each case's `compile_<case>.py`, the script a user would write, through the CLI and the real worker.

Torch's own verdict, read by hand from `bench/compile_truth.py` (each script run with
`TORCH_LOGS=graph_breaks` and `torch.compile(..., backend="eager")`: "Graph break in user code at
<file>:<line>", the innermost frame of the case's files when torch names one in the standard
library, and the `gb/gbNNNN` link) on torch 2.10.0, 2.13.0 and 2.15.0, never from ExportLens's
output. A graph-break id differs between versions: torch 2.10 says `copy.deepcopy()` (gb0179)
where 2.13 says "Attempted to copy.deepcopy a tensor" (gb4198), and its data-dependent branch has
no link.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_cli import run_cli
from tests.conftest import WORKER_PYTHON

CORPUS = Path(__file__).resolve().parents[1] / "data" / "realcode" / "corpus"

GbIds = dict[str, str | None]  # torch version (major.minor) -> its graph-break id (None: no link)
EVERY = ("2.10", "2.13", "2.15")


def same(gb_id: str | None) -> GbIds:
    return dict.fromkeys(EVERY, gb_id)


# (case, script) -> (the file, the line torch's graph break is at (1-based), the id per torch)
TORCH_SAYS: dict[tuple[str, str], tuple[str, int, GbIds]] = {
    # torchaudio's Conformer: `int(torch.max(lengths).item())` building the padding mask (gb0124)
    ("conformer", "compile_conformer.py"): ("conformer.py", 18, same("gb0124")),
    # Mistral's MoE: `torch.where(selected_experts == i)` in the loop over experts (a nonzero)
    ("moe", "compile_moe.py"): ("moe.py", 36, same("gb0036")),
    # the same layer compiled and called inside a script's `def main():`
    ("moe", "train_moe.py"): ("moe.py", 36, same("gb0036")),
    # transformers' GPT-2: `logger.warning_once(...)` in forward under gradient checkpointing
    ("gpt2_hf", "train_gpt2_hf.py"): ("modeling_gpt2.py", 111, same("gb0291")),
    # fairseq's encoder: `if has_pads:` on `encoder_padding_mask.any()`
    ("fairseq_encoder", "compile_fairseq_encoder.py"): (
        "transformer_encoder.py",
        54,
        {"2.10": None, "2.13": "gb0170", "2.15": "gb0170"},
    ),
    # Deformable DETR's criterion: `bin_targets = copy.deepcopy(targets)` (tensors in dicts)
    ("deformable_detr", "train_deformable_detr.py"): (
        "criterion.py",
        68,
        {"2.10": "gb0179", "2.13": "gb4198", "2.15": "gb4198"},
    ),
    # MoCo's training step: `int(self.queue_ptr)` in `_dequeue_and_enqueue` (an `.item()`); the EMA of
    # the key encoder in `torch.no_grad()` inside forward traces without a break (measured on 2.13)
    ("moco", "train_moco.py"): ("builder.py", 40, {"2.13": "gb0124"}),
}


@pytest.mark.parametrize(("case", "script"), sorted(TORCH_SAYS))
def test_the_break_torch_reports_is_a_warning_on_its_line(case: str, script: str) -> None:
    folder = CORPUS / case
    out = run_cli(script, "--no-cache", "--format", "json", cwd=folder, python=WORKER_PYTHON)
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads(out.stdout)
    found = [d for f in report["files"] for d in f["diagnostics"]]
    path, line, ids = TORCH_SAYS[case, script]
    gb_id = ids.get(".".join(report["torch"].split(".")[:2]))  # no truth for that torch: the line only
    assert [(Path(d["path"]).name, d["range"]["start"]["line"] + 1, d["code"]) for d in found] == [
        (path, line, "compile-graph-break")
    ]
    if gb_id:
        assert found[0]["url"].endswith(f"/gb/{gb_id}.html")


# The cases without an export script: their model file, checked alone, is checked through the
# compile script beside it (check/sites.py) and gets torch's break all the same.
ALONE = [
    (case, script) for case, script in sorted(TORCH_SAYS) if not any((CORPUS / case).glob("export_*.py"))
]


@pytest.mark.parametrize(("case", "script"), ALONE)
def test_the_model_file_alone_gets_the_break_through_its_script(case: str, script: str) -> None:
    path, line, _ = TORCH_SAYS[case, script]
    out = run_cli(path, "--no-cache", "--format", "json", cwd=CORPUS / case, python=WORKER_PYTHON)
    assert out.returncode == 0, out.stdout + out.stderr
    (entry,) = json.loads(out.stdout)["files"]
    assert [(d["range"]["start"]["line"] + 1, d["code"]) for d in entry["diagnostics"]] == [
        (line, "compile-graph-break")
    ]
    related = [(r["path"], r["message"]) for r in entry["diagnostics"][0]["related"]]
    assert (script, "the call of the compiled model whose inputs were used") in related, related


def test_mamba_recompiles_on_its_loop_line_and_no_unproven_remedy_is_advised() -> None:
    """mamba-minimal compiled and called at growing lengths (issue 45). Torch's verdict, by hand
    (backend="eager", torch 2.13.0): every new length logs a guard failure, with `dynamic=True` too,
    and `mark_dynamic(input_ids, 1)` raises "... your code specialized it to be a constant"; the
    size is pinned by the scan's `for i in range(l)`, in the model file, not the script."""
    folder = CORPUS / "mamba"
    out = run_cli("compile_mamba.py", "--no-cache", "--format", "json", cwd=folder, python=WORKER_PYTHON)
    assert out.returncode == 0, out.stdout + out.stderr
    found = [d for f in json.loads(out.stdout)["files"] for d in f["diagnostics"]]
    loop = next(
        i
        for i, text in enumerate((folder / "mamba.py").read_text().splitlines())
        if text.strip() == "for i in range(l):"
    )
    assert [(Path(d["path"]).name, d["range"]["start"]["line"], d["code"]) for d in found] == [
        ("mamba.py", loop, "compile-recompile")
    ]
    message = found[0]["message"]
    assert "recompiles for each new sequence length (called with sizes 12, 13, 14)" in message
    assert "Proven" not in message and "or mark it dynamic" not in message, message
    # what torch did with each remedy is said, so nobody tries it
    assert "`torch.compile(..., dynamic=True)` still recompiles" in message, message
    assert "`torch._dynamo.mark_dynamic(input_ids, 1)` before each call makes torch raise" in message, message
    assert "specialized it to be a constant" in message
    assert [r["message"] for r in found[0]["related"]] == ["`Mamba` is compiled here"]
