"""`exportlens check` says what the editor says: the CLI and the real language server (pytest-lsp,
the real worker) on the same workspaces, every file, the same findings.

Workspaces: a model exported by a script in another file (issue 27's example: the model file has
no export call of its own), `examples/`, and cases of the real-code corpus. The default suite takes
CORPUS_CASES, a subset that covers its shapes (a script exporting a model file of its folder, a
package exported from a script beside it, a file that exports itself, a model torch exports); the
whole corpus (about 15 minutes on a shared 2-core machine) with EXPORTLENS_PARITY_CORPUS=all.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest
from lsprotocol import types

from tests.conftest import WORKER_PYTHON
from tests.lsp.conftest import Session, start, stop
from tests.paths import ROOT
from tests.shared_sources import EXPORT_GATE, GATE_MODEL

CORPUS = ROOT / "tests" / "data" / "realcode" / "corpus"
CORPUS_CASES = ("mingpt", "nanogpt", "td3", "word_lm")
TIMEOUT = 120  # per export, both sides: a busy machine must not make one side time out alone

Shown = tuple[Any, ...]  # one finding, as both sides show it


def corpus_cases() -> list[str]:
    if os.environ.get("EXPORTLENS_PARITY_CORPUS") == "all":
        return sorted(p.name for p in CORPUS.iterdir() if p.is_dir())
    return list(CORPUS_CASES)


def python_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def run_cli(root: Path, files: list[Path]) -> dict[Path, list[Shown]]:
    """`exportlens check FILE… --format json` in the workspace: each file's findings on itself."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "server"))
    command = [sys.executable, "-m", "exportlens", "check", *map(str, files)]
    command += ["--format", "json", "--no-cache", "--root", str(root), "--timeout", str(TIMEOUT)]
    if WORKER_PYTHON:
        command += ["--python", WORKER_PYTHON]
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode in (0, 1, 3), done.stderr
    found: dict[Path, list[Shown]] = {}
    for entry in json.loads(done.stdout)["files"]:
        path = (root / entry["path"]).resolve()
        found[path] = sorted(
            (
                tuple(d["range"]["start"].values()),
                tuple(d["range"]["end"].values()),
                d["severity"],
                d["code"],
                d["message"],
                d["module"],
                d["mode"],
                tuple(
                    (str((root / r["path"]).resolve()), tuple(r["range"]["start"].values()), r["message"])
                    for r in d["related"]
                ),
                json.dumps(d.get("fix"), sort_keys=True),
                d.get("url"),
            )
            for d in entry["diagnostics"]
            if (root / d["path"]).resolve() == path
        )
    return found


def shown_by_server(diagnostic: types.Diagnostic) -> Shown:
    data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    severity = {1: "error", 2: "warning", 3: "information", 4: "hint"}[int(diagnostic.severity or 1)]
    return (
        (diagnostic.range.start.line, diagnostic.range.start.character),
        (diagnostic.range.end.line, diagnostic.range.end.character),
        severity,
        diagnostic.code,
        diagnostic.message,
        data.get("module"),
        data.get("mode"),
        tuple(
            (
                unquote(urlparse(r.location.uri).path),
                (r.location.range.start.line, r.location.range.start.character),
                r.message,
            )
            for r in diagnostic.related_information or []
        ),
        json.dumps(data.get("fix"), sort_keys=True),
        diagnostic.code_description.href if diagnostic.code_description else None,  # the same link
    )


async def run_server(root: Path, files: list[Path]) -> dict[Path, list[Shown]]:
    """Each file opened in a server whose workspace folder is `root`, once its check is over."""
    settings: dict[str, Any] = {"debounceMs": 0, "timeoutSeconds": TIMEOUT}
    if WORKER_PYTHON:
        settings["python"] = WORKER_PYTHON
    session: Session = await start(root, settings)
    try:
        found = {}
        for path in files:
            diagnostics = await session.open_uri(path.as_uri(), path.read_text(encoding="utf-8"))
            found[path] = sorted(shown_by_server(d) for d in diagnostics)
            session.close(path.as_uri())
        return found
    finally:
        await stop(session)


async def assert_same(root: Path) -> dict[Path, list[Shown]]:
    files = [p.resolve() for p in python_files(root)]
    cli = run_cli(root, files)
    server = await run_server(root, files)
    for path in files:
        assert cli.get(path, []) == server[path], f"{path.relative_to(root)}: the CLI and the editor differ"
    return cli


@pytest.mark.slow
async def test_a_model_exported_from_a_script_in_another_file(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "model.py").write_text(GATE_MODEL.lstrip())
    (tmp_path / "export_gate.py").write_text(EXPORT_GATE.lstrip())
    found = await assert_same(tmp_path)
    culprit = GATE_MODEL.lstrip().splitlines().index("        if y.sum() > 0:")
    codes = [(shown[0][0], shown[3]) for shown in found[(tmp_path / "model.py").resolve()]]
    assert codes == [(culprit, "data-dependent-branch")], "the culprit line of model.py, in both"


@pytest.mark.slow
async def test_the_examples(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    found = await assert_same(tmp_path / "examples")
    assert any(shown[2] == "error" for file in found.values() for shown in file), "examples/ has failures"


@pytest.mark.slow
@pytest.mark.parametrize("case", corpus_cases())
async def test_the_real_code_corpus(tmp_path: Path, case: str) -> None:
    shutil.copytree(CORPUS / case, tmp_path / case)
    await assert_same(tmp_path / case)


@pytest.mark.slow
async def test_a_notebook(tmp_path: Path) -> None:
    """guarded.ipynb (tests/data/notebooks): the CLI's findings with their cell, the server's
    published on each cell: the same, in the cell's positions."""
    from exportlens.notebook import read_ipynb
    from tests.lsp.test_notebooks_server import Notebook

    path = tmp_path / "guarded.ipynb"
    shutil.copy(ROOT / "tests" / "data" / "notebooks" / "guarded.ipynb", path)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "server"))
    command = [sys.executable, "-m", "exportlens", "check", str(path), "--format", "json", "--no-cache"]
    command += ["--root", str(tmp_path), "--timeout", str(TIMEOUT)]
    if WORKER_PYTHON:
        command += ["--python", WORKER_PYTHON]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1800)
    cli = sorted(
        (
            d["cell"],
            tuple(d["range"]["start"].values()),
            tuple(d["range"]["end"].values()),
            d["severity"],
            d["code"],
            d["message"],
            tuple((r.get("cell"), tuple(r["range"]["start"].values()), r["message"]) for r in d["related"]),
        )
        for entry in json.loads(done.stdout)["files"]
        for d in entry["diagnostics"]
    )
    settings: dict[str, Any] = {"debounceMs": 0, "timeoutSeconds": TIMEOUT}
    if WORKER_PYTHON:
        settings["python"] = WORKER_PYTHON
    session: Session = await start(tmp_path, settings)
    try:
        notebook = Notebook(session, "guarded.ipynb", read_ipynb(str(path)))
        await notebook.checked(1)
        number = {uri: index + 1 for index, (uri, _) in enumerate(notebook.cells)}
        server = sorted(
            (
                number[uri],
                *shown_by_server(d)[:5],
                tuple(
                    (number.get(r.location.uri), shown[1], shown[2])
                    for r, shown in zip(d.related_information or [], shown_by_server(d)[7], strict=True)
                ),
            )
            for uri, code in notebook.cells
            if code
            for d in notebook.diagnostics(number[uri] - 1)
        )
    finally:
        await stop(session)
    assert [c[4] for c in cli] == ["data-dependent-branch"]
    assert cli == server, "the CLI and the editor differ on the notebook"
