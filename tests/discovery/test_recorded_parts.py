"""Parts checked alone with the inputs their parent gives them (issue 13, item 1), through the real
worker: what the worker records (structure, shapes, dtypes, the parent's Dims by size), the part's
own check on those inputs, its findings said once, and what checking it alone cannot know."""

from __future__ import annotations

from pathlib import Path

from exportlens.check import check_file
from exportlens.check.jobs import CheckOptions, make_job
from exportlens.discovery import discovery_of
from exportlens.engine import Engine
from exportlens.findings import FileResult
from exportlens.reading import read_document
from tests.conftest import check, line_of
from tests.discovery.test_parts_and_guesses import BLOCK
from tests.realcode_expected import CORPUS

DYNAMIC = BLOCK.replace(
    "        torch.export.export(Block(), (torch.randn(2, 5, 16),))",
    '        batch = torch.export.Dim("batch", min=2, max=64)\n'
    "        torch.export.export(Block(), (torch.randn(3, 5, 16),), dynamic_shapes=({0: batch},))",
)


def modules(result: FileResult) -> dict[str, tuple[str, str]]:
    return {m.name: (m.status, m.inputs) for m in result.modules}


async def test_the_parent_records_what_each_part_receives_with_its_dims(engine: Engine, write) -> None:
    path = write(
        "block_record.py",
        DYNAMIC.replace("self.attn(self.ln(x))", "self.attn(self.ln(x), scale=0.5)").replace(
            "def forward(self, x):\n            B, T, C",
            "def forward(self, x, scale=1.0):\n            B, T, C",
        ),
    )
    doc = read_document(path)
    (block,) = [t for t in discovery_of(doc).subjects if t.name == "Block"]
    options = CheckOptions(roots=[str(Path(path).parent)])
    outcome = await engine.run(make_job(doc, block, False, options, parts_from=[path]))
    assert outcome.status == "exported"
    (record,) = outcome.raw["parts"]  # Block's nn.LayerNorm is torch's: only the file's classes
    assert record == {
        "class": "SelfAttention",
        "file": str(Path(path).resolve()),
        "module": "attn",
        "args": [{"tensor": {"shape": [3, 5, 16], "dtype": "float32", "dims": ["batch", None, None]}}],
        "kwargs": {"scale": {"value": 0.5}},
        "dims": {"batch": {"name": "batch", "hint": "dim", "size": 3, "min": 2, "max": 64}},
    }


async def test_a_dynamic_dim_of_the_parent_is_the_parts_dim(engine: Engine, write) -> None:
    path = write("block_dynamic.py", DYNAMIC)
    result = await check(engine, path)
    assert [f for f in result.diagnostics if f.severity == "error"] == []
    assert modules(result)["SelfAttention"] == ("exported", "recorded")
    (attention,) = [m for m in result.modules if m.name == "SelfAttention"]
    assert attention.graph is not None
    assert [(d["input"], d["dim"], d["min"], d["max"]) for d in attention.graph["dynamic"]] == [
        ("x", 0, 2, 64)
    ]


async def test_a_failure_of_the_part_is_said_once_on_its_line(engine: Engine, write) -> None:
    # Block itself stops first (its own branch), so the part's branch is the part's own check's find
    broken = BLOCK.replace(
        "            B, T, C = x.size()\n",
        "            B, T, C = x.size()\n            if x.max() > 10:\n                x = x / 2\n",
    ).replace(
        "            return x + self.attn(self.ln(x))\n",
        "            if x.mean() > 5:\n                x = x - 1\n"
        "            return x + self.attn(self.ln(x))\n",
    )
    path = write("block_two_branches.py", broken)
    result = await check(engine, path)
    part_line, parent_line = line_of(path, "if x.max() > 10:"), line_of(path, "if x.mean() > 5:")
    assert modules(result)["SelfAttention"] == ("failed", "recorded")
    at_part = [(f.code, f.severity) for f in result.diagnostics if f.range.start.line == part_line]
    assert at_part == [("data-dependent-branch", "error")]
    at_parent = [(f.code, f.module) for f in result.diagnostics if f.range.start.line == parent_line]
    assert at_parent == [("data-dependent-branch", "Block")]


async def test_a_static_dim_as_large_as_a_dynamic_one_stays_static(engine: Engine, write) -> None:
    # A batch of 16 is as large as the embedding: by size alone the part's C would be `batch` too,
    # and its Linear would pin it. The second pass (batch narrowed to 15) shows C does not follow.
    path = write("block_same_size.py", DYNAMIC.replace("torch.randn(3, 5, 16)", "torch.randn(16, 5, 16)"))
    result = await check(engine, path)
    assert [f for f in result.diagnostics if f.severity == "error"] == []
    assert not any(f.module == "SelfAttention" for f in result.diagnostics)
    (attention,) = [m for m in result.modules if m.name == "SelfAttention"]
    assert (attention.status, attention.inputs) == ("exported", "recorded")
    assert attention.graph is not None
    assert [(d["input"], d["dim"]) for d in attention.graph["dynamic"]] == [("x", 0)]


async def test_dims_the_narrowed_pass_cannot_confirm_are_static(engine: Engine, write) -> None:
    # Block needs an even batch (a reshape into pairs): narrowed to 3 it fails, so nothing is
    # confirmed and the part is checked with static shapes, never with a Dim it may not have.
    paired = DYNAMIC.replace(
        "            return x + self.attn(self.ln(x))\n",
        "            x = x.reshape(-1, 2, 5, 16).reshape(-1, 5, 16)\n"
        "            return x + self.attn(self.ln(x))\n",
    ).replace("torch.randn(3, 5, 16)", "torch.randn(4, 5, 16)")
    path = write("block_paired.py", paired)
    doc = read_document(path)
    (block,) = [t for t in discovery_of(doc).subjects if t.name == "Block"]
    options = CheckOptions(roots=[str(Path(path).parent)])
    outcome = await engine.run(make_job(doc, block, False, options, parts_from=[path]))
    (record,) = outcome.raw["parts"]
    assert record["dims"] == {} and record["args"][0]["tensor"]["dims"] == [None, None, None]


async def test_nanogpt_parts_exported_from_main_are_checked_with_their_inputs(engine: Engine, write) -> None:
    """nanoGPT's model file as it is, with the export a user adds under `__main__`."""
    model = (CORPUS / "nanogpt" / "model.py").read_text(encoding="utf-8")
    script = model + (
        "\n\nif __name__ == '__main__':\n"
        "    config = GPTConfig(block_size=64, vocab_size=96, n_layer=2, n_head=2, n_embd=32, dropout=0.0)\n"
        "    model = GPT(config).eval()\n"
        "    idx = torch.randint(0, config.vocab_size, (3, 16))\n"
        "    seq = torch.export.Dim('seq', max=config.block_size)\n"
        "    batch = torch.export.Dim('batch')\n"
        "    torch.export.export(model, (idx,), dynamic_shapes={'idx': {0: batch, 1: seq}})\n"
    )
    path = write("nanogpt_main.py", script)
    result = await check(engine, path)
    assert [(f.code, f.module, f.range.start.line) for f in result.diagnostics if f.severity == "error"] == []
    got = modules(result)
    assert got["GPT"] == ("exported", "export-call")
    for part in ("CausalSelfAttention", "MLP", "Block", "LayerNorm"):
        assert got[part] == ("exported", "recorded"), part
    (attention,) = [m for m in result.modules if m.name == "CausalSelfAttention"]
    assert attention.graph is not None
    dims = [(d["input"], d["dim"], d["max"]) for d in attention.graph["dynamic"]]
    assert dims == [("x", 0, None), ("x", 1, 64)]


async def test_a_part_of_a_parent_checked_on_meta_weights_is_checked_on_meta_too(
    engine: Engine, write
) -> None:
    # A parent above the meta-weights threshold is never allocated: nor is it when its part is checked.
    path = write("block_meta.py", DYNAMIC)
    options = CheckOptions(roots=[str(Path(path).parent)], meta_above_mb=0.001)
    result = await check_file(engine, path, None, options)
    assert [f for f in result.diagnostics if f.severity == "error"] == []
    graphs = {m.name: m.graph for m in result.modules if m.graph}
    assert graphs["Block"]["weights"]["meta"] is True
    assert modules(result)["SelfAttention"] == ("exported", "recorded")
    assert graphs["SelfAttention"]["weights"]["meta"] is True


async def test_a_parent_job_records_nothing_unless_told_which_files(engine: Engine, write, tmp_path) -> None:
    # Each run of Block's forward leaves a line: the export's trace, then (told to record) the
    # eager pass under the hooks and the narrowed pass that confirms the Dims. Not told: neither.
    counted = DYNAMIC.replace(
        "        def forward(self, x):\n            return x + self.attn",
        f"        def forward(self, x):\n            open({str(tmp_path / 'runs')!r}, 'a').write('.')\n"
        "            return x + self.attn",
    )
    path = write("block_counted.py", counted)
    doc = read_document(path)
    (block,) = [t for t in discovery_of(doc).subjects if t.name == "Block"]
    options = CheckOptions(roots=[str(Path(path).parent)])
    runs = []
    for parts_from in ([path], []):
        (tmp_path / "runs").write_text("")
        outcome = await engine.run(make_job(doc, block, False, options, parts_from=parts_from))
        assert outcome.status == "exported"
        runs.append(((tmp_path / "runs").read_text().count("."), "parts" in outcome.raw))
    (recorded, with_parts), (plain, without_parts) = runs
    assert with_parts and not without_parts
    assert recorded == plain + 2, runs


async def test_a_part_its_parent_never_calls_stays_silent(engine: Engine, write) -> None:
    path = write(
        "block_uncalled.py", BLOCK.replace("return x + self.attn(self.ln(x))", "return x + self.ln(x)")
    )
    result = await check(engine, path)
    assert modules(result)["SelfAttention"] == ("skipped", "inferred")  # no record: no guess either
    assert not any(f.module == "SelfAttention" for f in result.diagnostics)


async def test_the_parents_export_is_reported_before_its_parts_are_recorded(engine: Engine, write) -> None:
    """The recording pass (one or two eager runs) only adds to a clean export: the export's result
    reaches the caller first, as a failure's first finding does before the search for more."""
    path = write("block_early.py", DYNAMIC)
    doc = read_document(path)
    (block,) = [t for t in discovery_of(doc).subjects if t.name == "Block"]
    options = CheckOptions(roots=[str(Path(path).parent)])
    early = []
    outcome = await engine.run(make_job(doc, block, False, options, parts_from=[path]), early.append)
    (first,) = early
    assert first.status == "exported" and "parts" not in first.raw, first.raw.keys()
    assert first.summary == outcome.summary and outcome.raw["parts"]
    early.clear()  # nothing to record: nothing said early, the answer is the first word
    await engine.run(make_job(doc, block, False, options, parts_from=[]), early.append)
    assert early == []
