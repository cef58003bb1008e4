"""Compile checks through the real server (issue 31, docs/compile.md): a compiled model's graph
breaks as warnings on their lines (errors with `fullgraph=True`), its recompiles, the lens."""

from __future__ import annotations

from lsprotocol import types

from tests.compile.sources import (
    BATCH_PINNED,
    COMPILED_IN_MAIN,
    DECORATED_FUNCTION,
    FULLGRAPH,
    FUNCTION_COMPILED,
    PRINT_AND_BRANCH,
    line_of,
)

from .conftest import Session


async def test_a_compiled_models_breaks_are_warnings_on_their_lines_and_the_lens_counts_them(
    server: Session,
) -> None:
    diagnostics = await server.open("compiled_train.py", PRINT_AND_BRANCH)
    assert [(d.code, d.range.start.line, d.severity) for d in diagnostics] == [
        (
            "compile-graph-break",
            line_of(PRINT_AND_BRANCH, 'print("hidden"'),
            types.DiagnosticSeverity.Warning,
        ),
        (
            "compile-graph-break",
            line_of(PRINT_AND_BRANCH, "if h.sum() > 0:"),
            types.DiagnosticSeverity.Warning,
        ),
    ]
    assert diagnostics[0].message.startswith("torch.compile: graph break in `Net`: Failed to trace builtin")
    assert diagnostics[1].code_description is not None
    assert diagnostics[1].code_description.href.endswith("/gb/gb0170.html")
    uri = (server.root / "compiled_train.py").resolve().as_uri()
    lenses = await server.lenses(uri)
    assert lenses[0] == "⚡ 3 graphs · 2 breaks", lenses
    at = types.Position(line=line_of(PRINT_AND_BRANCH, "class Net"), character=0)
    ran = await server.command("exportlens.exportModule", uri, at)
    assert (ran["module"], ran["status"]) == ("Net", "compiled")  # only compiled: never said to export


async def test_fullgraph_makes_the_print_an_error_and_a_pinned_batch_size_recompiles(server: Session) -> None:
    diagnostics = await server.open("compiled_fullgraph.py", FULLGRAPH)
    printed = [d for d in diagnostics if d.range.start.line == line_of(FULLGRAPH, 'print("hidden"')]
    assert [(d.code, d.severity) for d in printed] == [
        ("compile-graph-break-fullgraph", types.DiagnosticSeverity.Error)
    ]
    diagnostics = await server.open("compiled_rows.py", BATCH_PINNED)
    assert [(d.code, d.range.start.line) for d in diagnostics] == [
        ("compile-recompile", line_of(BATCH_PINNED, "for i in range(x.shape[0])"))
    ]
    assert "recompiles for each new batch size (called with sizes 2, 3, 4)" in diagnostics[0].message


async def test_a_compiled_function_gets_its_breaks_on_its_lines(server: Session) -> None:
    diagnostics = await server.open("compiled_step.py", FUNCTION_COMPILED)
    assert [(d.code, d.range.start.line, d.severity) for d in diagnostics] == [
        ("compile-graph-break", line_of(FUNCTION_COMPILED, 'print("step"'), types.DiagnosticSeverity.Warning)
    ]
    assert diagnostics[0].message.startswith("torch.compile: graph break in `step`:")
    lenses = await server.lenses((server.root / "compiled_step.py").resolve().as_uri())
    assert lenses[0] == "⚡ 2 graphs · 1 break", lenses
    diagnostics = await server.open("compiled_gate.py", DECORATED_FUNCTION)
    assert [(d.code, d.range.start.line, d.severity) for d in diagnostics] == [
        (
            "compile-graph-break-fullgraph",
            line_of(DECORATED_FUNCTION, "if h.sum() > 0:"),
            types.DiagnosticSeverity.Error,
        )
    ]


async def test_a_model_compiled_and_called_in_main_gets_its_break(server: Session) -> None:
    diagnostics = await server.open("compiled_main.py", COMPILED_IN_MAIN)
    assert [(d.code, d.range.start.line) for d in diagnostics] == [
        ("compile-graph-break", line_of(COMPILED_IN_MAIN, 'print("hidden"'))
    ]
