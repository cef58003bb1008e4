"""Part classes defined in another workspace file (issue 13, item 1), through the real worker:
`model.py`'s `GPT` holds `blocks.py`'s `Block`; its export records what `Block` and its
`SelfAttention` receive (torch's own classes never), and a check given `blocks.py` checks them
with that, their findings on `blocks.py`."""

from __future__ import annotations

from pathlib import Path

from exportlens.check import check_file
from exportlens.check.jobs import CheckOptions
from exportlens.discovery import discovery_of
from exportlens.engine import Engine
from exportlens.reading import read_document
from tests.conftest import line_of
from tests.lsp.test_parts_elsewhere_server import BLOCKS, BROKEN, MODEL


async def check_with(engine: Engine, model: str, blocks: str) -> tuple[dict[str, tuple[str, str]], list]:
    options = CheckOptions(roots=[str(Path(model).parent)])
    result = await check_file(engine, model, None, options, others=[read_document(blocks)])
    return {m.name: (m.status, m.inputs) for m in result.modules}, result.diagnostics


async def test_a_sibling_files_parts_are_recorded_and_checked(engine: Engine, write) -> None:
    model = write(
        "model.py", MODEL.replace("nn.Sequential(Block(), Block())", "nn.Sequential(Block(), nn.GELU())")
    )
    blocks = write("blocks.py", BLOCKS)
    modules, diagnostics = await check_with(engine, model, blocks)
    assert modules["GPT"] == ("exported", "export-call")
    assert modules["blocks.Block"] == ("exported", "recorded")
    assert modules["blocks.SelfAttention"] == ("exported", "recorded")
    assert "blocks.Helper" not in modules  # never called: no record, no check
    assert diagnostics == []


async def test_a_sibling_parts_failure_lands_on_its_file(engine: Engine, write) -> None:
    model = write("model.py", MODEL)
    blocks = write("blocks.py", BROKEN)
    modules, diagnostics = await check_with(engine, model, blocks)
    line = line_of(blocks, "if x.max() > 10:")
    assert modules["GPT"][0] == "failed" and modules["blocks.SelfAttention"] == ("failed", "recorded")
    # GPT's export stops on the same line: said once, by GPT
    assert [(Path(d.path).name, d.range.start.line, d.code, d.module) for d in diagnostics] == [
        ("blocks.py", line, "data-dependent-branch", "GPT")
    ]


async def test_without_the_sibling_document_only_the_files_own_parts_are_checked(
    engine: Engine, write
) -> None:
    model = write("model.py", MODEL)
    write("blocks.py", BLOCKS)
    result = await check_file(engine, model, None, CheckOptions(roots=[str(Path(model).parent)]))
    assert [m.name for m in result.modules] == ["GPT"]


async def test_a_scripts_parent_result_is_heard_before_its_parts_are_checked(engine: Engine, write) -> None:
    # The server's path for a model file that a script exports (check/elsewhere.py): the parent's
    # result, mapped onto the model's lines, is reported before the parts' own jobs end.
    from exportlens.check.elsewhere import check_elsewhere
    from tests.lsp.test_parts_elsewhere_server import SCRIPT

    model = BROKEN + MODEL.split("from blocks import Block\n")[1].split('    if __name__ == "__main__":')[0]
    gpt, script = write("gpt.py", model), write("export.py", SCRIPT)
    doc = read_document(gpt)
    by_name = {t.name: t for t in discovery_of(doc).subjects}
    heard: list[tuple[str, str, list[tuple[int, str]]]] = []
    submitted: list[str] = []  # the jobs the engine was given, in order
    run = engine.run

    def recording_run(job, on_partial=None):  # type: ignore[no-untyped-def]
        submitted.append(str(job.subject["name"]))
        return run(job, on_partial)

    engine.run = recording_run  # type: ignore[method-assign]
    seen_then: list[list[str]] = []

    def early(result, findings) -> None:  # type: ignore[no-untyped-def]
        heard.append((result.name, result.status, [(f.range.start.line, f.code) for f in findings]))
        seen_then.append(list(submitted))

    parts = [by_name[name] for name in ("SelfAttention", "Block", "Helper")]
    options = CheckOptions(roots=[str(Path(gpt).parent)])
    try:
        modules, findings = await check_elsewhere(
            engine, doc, options, script, [by_name["GPT"]], parts, early
        )
    finally:
        del engine.run  # the class's own again, for the tests that share this engine
    line = line_of(gpt, "if x.max() > 10:")
    assert heard[-1] == ("GPT", "failed", [(line, "data-dependent-branch")])
    assert seen_then[-1] == ["GPT"]  # heard before any part's job was given to the engine
    assert sorted(submitted[1:]) == ["gpt.Block", "gpt.SelfAttention"]
    assert {m.name: (m.status, m.inputs) for m in modules} == {
        "GPT": ("failed", "export-call"),
        "SelfAttention": ("failed", "recorded"),
        "Block": ("failed", "recorded"),
    }  # Helper, never called there, is not its answer: its own file's check takes it (placed.py)
    assert [(f.range.start.line, f.code, f.module) for f in findings] == [
        (line, "data-dependent-branch", "GPT")
    ]
