"""Every refusal inside transformers, on the tiny models people export (issue 44 item 4): the finding
is on the user's line with the modeling file's line that decided it related, and a model torch
exports gets no finding. Real transformers (pinned; `make test-transformers-older` runs this on a
second release), real torch, tiny configs, random weights, nothing downloaded.

The truth is torch's own, computed here on the worker's interpreter (export_truth.py: the
innermost transformers frame of torch's traceback, or where the model built the output torch
could not flatten), never line numbers written down: they move between releases.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_cli import run_cli
from tests.conftest import WORKER_PYTHON
from tests.realcode.tiny_transformers import MODELS, SHAPES, script

pytestmark = pytest.mark.slow

CASES = [f"{tiny.name}_{shape}.py" for tiny in MODELS for shape in SHAPES]
TRUTH = Path(__file__).with_name("export_truth.py")


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any]]:
    """(torch's verdict, ExportLens's diagnostics with real paths) per script: one CLI run."""
    folder = tmp_path_factory.mktemp("tiny_transformers")
    for tiny in MODELS:
        for shape in SHAPES:
            (folder / f"{tiny.name}_{shape}.py").write_text(script(tiny, shape))
    paths = [str(folder / case) for case in CASES]
    done = subprocess.run(
        [WORKER_PYTHON or sys.executable, str(TRUTH), *paths],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    truth = {Path(said["path"]).name: said for said in map(json.loads, done.stdout.splitlines())}
    out = run_cli(".", "--no-cache", "--format", "json", cwd=folder, python=WORKER_PYTHON)
    said = {Path(entry["path"]).name: entry["diagnostics"] for entry in json.loads(out.stdout)["files"]}
    for finding in (d for found in said.values() for d in found):
        for related in finding.get("related") or []:  # the CLI's paths are the folder's relative ones
            related["path"] = _real(str(folder / related["path"]))
    return truth, said


def _real(path: str) -> str:
    return os.path.realpath(path)


@pytest.mark.parametrize("case", CASES)
def test_a_refusal_inside_transformers_names_the_user_line_and_the_modeling_line(
    case: str, checked: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    truth, said = checked
    verdict = truth[case]
    errors = [d for d in said.get(case, []) if d["severity"] == "error"]
    if verdict["verdict"] == "exports":
        assert errors == [], errors
        return
    assert verdict["verdict"] in ("refused", "raised"), verdict
    # the first error is torch's refusal (the ones after it are what a second pass found)
    first = errors[0] if errors else None
    assert first is not None, verdict
    assert first["range"]["start"]["line"] == verdict["user_line"] - 1, (first, verdict)
    related = {(r["path"], r["range"]["start"]["line"]) for r in first.get("related") or []}
    if verdict["verdict"] == "raised":  # the script fails before its export (a library's import)
        assert related & {(_real(path), line - 1) for path, line in verdict["libraries"]}, (first, verdict)
        return
    library, line = verdict["library"]
    assert Path(library).name.startswith("modeling_"), verdict
    assert (_real(library), line - 1) in related, (first, verdict)
    # what the search found past it, inside the library too, names its library line as well
    for later in said[case][1:]:
        inside = [r for r in later.get("related") or [] if "/transformers/" in r["path"]]
        assert inside, later
