"""Bad input through the real server (and the CLI): syntax errors, encodings, a huge file,
buffers that are no file, modules that cannot be built, interpreters without (a recent) torch,
a workspace `torch.py`."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types

from ..lsp.conftest import SERVER_DIR, Session
from ..lsp.models import GUARDED, MLP
from .conftest import assert_only_worker_left, clean_export_works, start_server, stop_server

HUGE_WAIT = 1800.0  # a guard so a broken server fails instead of hanging; never asserted on
SHADOW = 'raise ImportError("this is the workspace torch.py, not torch")\n'


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def bad_server(tmp_path_factory: Any) -> AsyncIterator[Session]:
    """Runs in a workspace that has a `torch.py` at its root, as its working directory."""
    root = tmp_path_factory.mktemp("bad").resolve()
    (root / "torch.py").write_text(SHADOW)
    session = await start_server(root, {"debounceMs": 0, "timeoutSeconds": 60}, cwd=root)
    yield session
    await stop_server(session)


def codes(diagnostics: list[types.Diagnostic]) -> list[str]:
    return [str(d.code) for d in diagnostics]


async def test_syntax_error_keeps_the_last_results_marked_stale(bad_server: Session) -> None:
    server = bad_server
    diagnostics = await server.open("stale.py", GUARDED)
    assert codes(diagnostics) == ["data-dependent-branch"]
    good = diagnostics[0]
    uri = (server.root / "stale.py").resolve().as_uri()

    broken = GUARDED + "\n\n    def broken(:\n"
    version = server.change(uri, broken)
    diagnostics = await server.wait_checked(uri, version)
    assert codes(diagnostics) == ["syntax-error", "data-dependent-branch"]
    stale = diagnostics[1]
    assert stale.message.startswith("(stale: from the last version that parsed) ")
    assert isinstance(stale.data, dict) and stale.data["stale"] is True
    assert stale.range == good.range
    status = await server.command("exportlens.status")
    assert status["openFiles"] >= 1

    # a syntax error that removes lines: stale findings past the end are dropped
    version = server.change(uri, "import torch\nclass (\n")
    assert codes(await server.wait_checked(uri, version)) == ["syntax-error"]

    version = server.change(uri, GUARDED)
    diagnostics = await server.wait_checked(uri, version)
    assert codes(diagnostics) == ["data-dependent-branch"]
    assert not diagnostics[0].message.startswith("(stale")
    server.close(uri)


LATIN1 = "# -*- coding: latin-1 -*-\n" + textwrap.dedent(GUARDED).lstrip("\n").replace(
    "class MLP", '# "café" déjà vu\nclass MLP'
)


def test_cli_reads_latin1_files(tmp_path: Path) -> None:
    declared = tmp_path / "declared.py"
    declared.write_bytes(LATIN1.encode("latin-1"))
    undeclared = tmp_path / "undeclared.py"
    undeclared.write_bytes(LATIN1.split("\n", 1)[1].encode("latin-1"))
    run = subprocess.run(
        [sys.executable, "-m", "exportlens", "check", "--format", "json", str(declared), str(undeclared)],
        # a bare environment, but the session's results store and daemon folder (conftest.py): the
        # run leaves nothing in the home folder, and its daemon is stopped with the session's
        env={
            "PYTHONPATH": SERVER_DIR,
            "PATH": "/usr/bin:/bin",
            "EXPORTLENS_CACHE_DIR": os.environ["EXPORTLENS_CACHE_DIR"],
            "EXPORTLENS_RUNTIME_DIR": os.environ["EXPORTLENS_RUNTIME_DIR"],
        },
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert run.returncode == 1, run.stderr  # findings, not an internal error
    assert "Traceback" not in run.stderr
    report = json.loads(run.stdout)
    files = report["files"] if isinstance(report, dict) and "files" in report else report
    by_name = {Path(f["path"]).name: f for f in files}
    declared_codes = [d["code"] for d in by_name["declared.py"]["diagnostics"]]
    assert declared_codes == ["data-dependent-branch"], by_name["declared.py"]
    line = LATIN1.splitlines().index("        if (y > 0).any():")
    assert by_name["declared.py"]["diagnostics"][0]["range"]["start"]["line"] == line
    (bad,) = by_name["undeclared.py"]["diagnostics"]
    assert bad["code"] == "syntax-error" and "not valid utf-8" in bad["message"], bad
    first = next(i for i, line in enumerate(LATIN1.splitlines()[1:]) if "café" in line)
    assert bad["range"]["start"]["line"] == first  # the comment with the first latin-1 byte


async def test_untitled_buffer_with_non_ascii_text(bad_server: Session) -> None:
    uri = "untitled:Untitled-1"
    text = (
        textwrap.dedent(GUARDED)
        .lstrip("\n")
        .replace(
            "        if (y > 0).any():",
            "        # café, 中文, 😀\n        if (y > 0).any():  # 😀 é",
        )
    )
    diagnostics = await bad_server.open_uri(uri, text)
    assert codes(diagnostics) == ["data-dependent-branch"]
    (d,) = diagnostics
    line = next(i for i, line in enumerate(text.splitlines()) if "if (y > 0).any()" in line)
    assert (d.range.start.line, d.range.start.character) == (line, 11)
    assert "😀" in text
    for related in d.related_information or []:
        assert related.location.uri == uri  # the buffer itself, not a made-up file: URI
    lenses = await bad_server.lenses(uri)
    assert lenses and lenses[0].startswith("✗"), lenses
    bad_server.close(uri)
    await assert_only_worker_left(bad_server)


async def test_a_module_that_cannot_be_constructed(bad_server: Session) -> None:
    text = """
        import torch


        class NeedsArgs(torch.nn.Module):
            def __init__(self, width):
                super().__init__()
                self.fc = torch.nn.Linear(width, 2)

            def forward(self, x):
                return self.fc(x)

            def example_inputs(self):
                return (torch.ones(1, 4),)


        class Raises(torch.nn.Module):
            def __init__(self):
                super().__init__()
                raise ValueError("no model for you")

            def forward(self, x):
                return x

            def example_inputs(self):
                return (torch.ones(1, 4),)
    """
    diagnostics = await bad_server.open("unbuildable.py", text)
    by_module = {d.data["module"]: d for d in diagnostics if isinstance(d.data, dict)}
    assert set(by_module) == {"NeedsArgs", "Raises"}, [(d.code, d.message) for d in diagnostics]
    # ExportLens built them as it read the code, torch said nothing: never an error (issue 40)
    assert all(d.severity == types.DiagnosticSeverity.Information for d in diagnostics)
    assert "width" in by_module["NeedsArgs"].message
    assert "no model for you" in by_module["Raises"].message
    lines = textwrap.dedent(text).lstrip("\n").splitlines()
    assert by_module["Raises"].range.start.line == next(
        i for i, s in enumerate(lines) if "raise ValueError" in s
    )
    await clean_export_works(bad_server, "after_unbuildable.py")


# Modules of the 10,000-line file that have example inputs (are exported); the others get the
# "no example inputs" information. All 200: EXPORTLENS_HUGE_EXPORTABLE=200 (several minutes on
# two cores: each job runs the whole 10,000-line buffer).
EXPORTABLE = int(os.environ.get("EXPORTLENS_HUGE_EXPORTABLE", "20"))


def huge_file(modules: int, lines_per_module: int, exportable: int) -> str:
    """Every 10th exported module has a data-dependent `if` (a failure)."""
    parts = ["import torch\n\n"]
    every = max(modules // max(exportable, 1), 1)
    for i in range(modules):
        exported = i % every == 0 and i // every < exportable
        failing = exported and (i // every) % 10 == 0
        body = [f"        y = y + {k}  # padding" for k in range(lines_per_module - 12)]
        branch = (
            "        if y.sum() > 0:\n            y = -y\n"
            if failing
            else "        y = y * 1\n        y = y\n"
        )
        inputs = "        return (torch.ones(2),)\n" if exported else "        return None  # no inputs\n"
        name = "example_inputs" if exported else "not_the_inputs"
        parts.append(
            f"\nclass Module{i}(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        y = x\n" + "\n".join(body) + "\n" + branch + "        return y\n\n"
            f"    def {name}(self):\n" + inputs + "\n"
        )
    return "".join(parts)


@pytest.mark.timeout(HUGE_WAIT + 60)
async def test_ten_thousand_lines_two_hundred_modules(bad_server: Session) -> None:
    text = huge_file(200, 51, EXPORTABLE)
    assert len(text.splitlines()) >= 10_000
    # The exports queue up behind each other (the worker runs two at a time): far longer than
    # any single export's timeout, which must not make the engine think the worker is wedged.
    uri, _ = bad_server.write("huge.py", text)
    bad_server.versions[uri] = 1
    mark = len(bad_server.record.checked)
    bad_server.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        )
    )

    async def checked() -> None:
        while not any(c["uri"] == uri for c in bad_server.record.checked[mark:]):
            await asyncio.sleep(0.1)

    await asyncio.wait_for(checked(), HUGE_WAIT)
    diagnostics = bad_server.diagnostics(uri, 1)
    lenses = [t for t in await bad_server.lenses(uri) if t not in ("Export", "Show graph")]
    assert len(lenses) == 200, lenses[:5]
    failing = (EXPORTABLE + 9) // 10
    assert sum(t.startswith("✓") for t in lenses) == EXPORTABLE - failing, lenses
    assert sum(t.startswith("✗") for t in lenses) == failing, lenses
    errors = [d for d in diagnostics if d.severity == types.DiagnosticSeverity.Error]
    assert codes(errors) == ["data-dependent-branch"] * failing
    assert codes(diagnostics).count("no-example-inputs") == 200 - EXPORTABLE
    lines = text.splitlines()
    for d in errors:
        assert lines[d.range.start.line].strip() == "if y.sum() > 0:"
    bad_server.close(uri)
    await assert_only_worker_left(bad_server)


def fake_old_torch(tmp_path: Path) -> Path:
    """An interpreter whose `torch` is a package claiming version 1.13.0."""
    package = tmp_path / "fake" / "torch"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('__version__ = "1.13.0"\n')
    wrapper = tmp_path / "python-old-torch"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH={package.parent} exec {sys.executable} "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


async def interpreter_diagnostic(server: Session, python: str, name: str) -> types.Diagnostic:
    await server.set_settings(python=python)
    try:
        diagnostics = await server.open(name, MLP)
        (d,) = diagnostics
        assert d.code == "worker-unavailable" and d.severity == types.DiagnosticSeverity.Error, d
        assert (await server.command("exportlens.status"))["workerPid"] is None
        server.close((server.root / name).resolve().as_uri())
        return d
    finally:
        await server.set_settings(python=None)


async def test_interpreter_without_torch(bad_server: Session, tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True, timeout=300
    )
    python = str(tmp_path / "venv" / "bin" / "python")
    assert subprocess.run([python, "-c", "import torch"], capture_output=True).returncode != 0
    d = await interpreter_diagnostic(bad_server, python, "no_torch.py")
    assert "No module named 'torch'" in d.message and python in d.message, d.message
    await clean_export_works(bad_server, "after_no_torch.py")


async def test_interpreter_with_too_old_torch(bad_server: Session, tmp_path: Path) -> None:
    d = await interpreter_diagnostic(bad_server, str(fake_old_torch(tmp_path)), "old_torch.py")
    assert "torch 1.13.0 is too old" in d.message and ">= 2.10," in d.message, d.message
    await clean_export_works(bad_server, "after_old_torch.py")


async def test_workspace_torch_py_does_not_shadow_torch(bad_server: Session) -> None:
    assert (bad_server.root / "torch.py").read_text() == SHADOW
    diagnostics = await bad_server.open("uses_torch.py", MLP)
    assert diagnostics == []
    status = await bad_server.command("exportlens.status")
    import torch  # the real one, for its version

    assert status["torch"] == torch.__version__.split("+")[0]


async def test_torch_py_on_pythonpath_is_named(tmp_path: Path) -> None:
    """When the user's own PYTHONPATH puts a torch.py first, the diagnostic says which file."""
    (tmp_path / "torch.py").write_text(SHADOW)
    server = await start_server(tmp_path, {"debounceMs": 0}, env={"PYTHONPATH": f"{tmp_path}:{SERVER_DIR}"})
    try:
        (d,) = await server.open("shadowed.py", MLP)
        assert d.code == "worker-unavailable"
        assert f"`import torch` loads {tmp_path / 'torch.py'}, which shadows the torch package" in d.message
    finally:
        await stop_server(server)
