"""Scheduling: cached modules stay, touched modules first, live configuration, export sites elsewhere."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from lsprotocol import types

from .conftest import Session, line_of
from .models import GUARDED, counted

TWO_GUARDED = """
    import torch


    class A(torch.nn.Module):
        def example_inputs(self):
            return (torch.ones(3),)

        def forward(self, x):
            if (x > 0).any():
                return x
            return -x


    class B(torch.nn.Module):
        def example_inputs(self):
            return (torch.ones(3),)

        def forward(self, x):
            if (x < 0).any():
                return x
            return -x
"""


def runs(counter: Path) -> int:
    return len(counter.read_text().splitlines()) if counter.exists() else 0


async def test_unchanged_modules_keep_their_results(server: Session, tmp_path: Path) -> None:
    counter = tmp_path / "a_runs.txt"
    source = counted(str(counter))
    assert await server.open("cached.py", source) == []
    uri = (server.root / "cached.py").resolve().as_uri()
    before = runs(counter)
    assert before >= 1
    line = line_of(source, "return x + 1")  # inside B, same number of lines
    version = server.edit(uri, line, len("        return x + 1"), len("        return x + 1"), " - 0")
    assert await server.wait_checked(uri, version) == []
    assert runs(counter) == before  # A was not exported again
    line = line_of(source, "return x * 2")  # inside A
    version = server.edit(uri, line, len("        return x * 2"), len("        return x * 2"), " + 0")
    assert await server.wait_checked(uri, version) == []
    assert runs(counter) > before
    assert all(t.startswith("✓ exports") for t in (await server.lenses(uri))[::3])


async def test_the_touched_module_is_published_first(server: Session) -> None:
    diagnostics = await server.open("two.py", TWO_GUARDED)
    assert sorted(d.data["module"] for d in diagnostics) == ["A", "B"]
    uri = (server.root / "two.py").resolve().as_uri()
    mark = len(server.record.published)
    b_line = line_of(TWO_GUARDED, "if (x < 0).any():")
    version = server.versions[uri] = server.versions[uri] + 1
    edits = [  # one didChange: a shared line (both modules' keys change) and a line of B
        (0, len("import torch"), "  # shared"),
        (b_line + 2, len("        return -x"), " * 1"),
    ]
    server.client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(line=line, character=col),
                        end=types.Position(line=line, character=col),
                    ),
                    text=text,
                )
                for line, col, text in edits
            ],
        )
    )
    await server.wait_checked(uri, version)
    published = [p for p in server.record.published[mark:] if p.uri == uri and p.version == version]
    assert [sorted(d.data["module"] for d in p.diagnostics) for p in published] == [["B"], ["A", "B"]]


async def test_configuration_change_applies_live(server: Session) -> None:
    diagnostics = await server.open("modes.py", GUARDED)
    assert {d.data["mode"] for d in diagnostics} == {"non-strict"}
    uri = (server.root / "modes.py").resolve().as_uri()
    mark = len(server.record.checked)
    await server.set_settings(mode="both")
    try:
        diagnostics = await server.wait_checked(uri, server.versions[uri], mark)
        # both tracers ran: one finding each, or one merged finding that says "both"
        assert {d.data["mode"] for d in diagnostics} in ({"non-strict", "strict"}, {"both"})
        assert all(d.range.start.line == line_of(GUARDED, "if (y > 0).any()") for d in diagnostics)
    finally:
        mark = len(server.record.checked)
        await server.set_settings(mode=None)
        await server.wait_checked(uri, server.versions[uri], mark)


NET = """
    import torch


    class Net(torch.nn.Module):
        def forward(self, x, y):
            if (x > y).any():
                return x
            return y
"""
EXPORT_SCRIPT = """
    import torch

    from models.net import Net

    if __name__ == "__main__":
        torch.export.export(Net(), (torch.randn(3), torch.randn(3)))
"""


async def test_export_site_in_another_file(server: Session) -> None:
    server.write("models/__init__.py", "")
    site_uri, _ = server.write("scripts/export_net.py", EXPORT_SCRIPT)
    diagnostics = await server.open("models/net.py", NET)
    (diag,) = diagnostics
    assert diag.code == "data-dependent-branch" and diag.data["module"] == "Net"
    assert diag.range.start.line == line_of(NET, "if (x > y).any()")
    assert site_uri in {r.location.uri for r in diag.related_information or []}
    uri = (server.root / "models/net.py").resolve().as_uri()
    assert (await server.lenses(uri))[0] == "✗ 1 export issue"


async def test_export_site_in_a_src_layout(server: Session) -> None:
    """`src/pkg/model.py`, exported by `scripts/export.py` as `from pkg.model import ...` (what an
    editable install makes importable): the script's findings land on the model's lines, on open."""
    server.write("src/srcpkg/__init__.py", "")
    site_uri, _ = server.write(
        "scripts/export_srcnet.py", EXPORT_SCRIPT.replace("models.net", "srcpkg.net").replace("Net", "SrcNet")
    )
    diagnostics = await server.open("src/srcpkg/net.py", textwrap.dedent(NET).replace("Net", "SrcNet"))
    (diag,) = diagnostics
    assert diag.code == "data-dependent-branch" and diag.data["module"] == "SrcNet", diag.message
    assert diag.range.start.line == line_of(NET, "if (x > y).any()")
    assert site_uri in {r.location.uri for r in diag.related_information or []}


async def test_without_the_site_there_are_no_inputs(server: Session) -> None:
    diagnostics = await server.open("lonely/net.py", textwrap.dedent(NET).replace("Net", "Lonely"))
    assert [d.code for d in diagnostics] == ["no-example-inputs"]
    # same class name, but the export script imports models.net, not this file
    diagnostics = await server.open("other/net.py", NET)
    assert [d.code for d in diagnostics] == ["no-example-inputs"]


def interpreter_wrapper(folder: Path) -> Path:
    """Another path to this venv's interpreter. A wrapper script, not a symlink: a symlinked venv
    python outside its venv finds no pyvenv.cfg and runs as the base interpreter (no torch)."""
    wrapper = folder / "python-wrapper"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


async def test_changing_the_interpreter_restarts_the_engine(server: Session, tmp_path: Path) -> None:
    diagnostics = await server.open("interp.py", GUARDED)
    uri = (server.root / "interp.py").resolve().as_uri()
    first = (await server.command("exportlens.status"))["workerPid"]
    missing = str(tmp_path / "no-such-python")
    mark = len(server.record.checked)
    await server.set_settings(python=missing)
    try:
        broken = await server.wait_checked(uri, server.versions[uri], mark)
        assert [d.code for d in broken] == ["worker-unavailable"] and missing in broken[0].message
        mark = len(server.record.checked)
        await server.set_settings(python=str(interpreter_wrapper(tmp_path)))
        assert [d.code for d in await server.wait_checked(uri, server.versions[uri], mark)] == [
            d.code for d in diagnostics
        ]
        status = await server.command("exportlens.status")
        second = status["workerPid"]
        assert second and second != first
        import torch  # the venv's: the wrapper must run this very interpreter, not another one

        assert status["torch"] == torch.__version__.split("+")[0]
    finally:  # later tests share this server: they get the default interpreter back
        await server.set_settings(python=None)
