"""SARIF locations code scanning can resolve (issue 42, item 6): the run says where `SRCROOT` is
(`originalUriBaseIds`, the working folder as a file URI) and each artifact inside it is a URI
relative to it (`uriBaseId`), percent-encoded; one outside it is an absolute file URI. Through the
real CLI and worker."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from tests.cli.test_cli import FAILING, run_cli


def _artifacts(log: dict[str, Any]) -> list[dict[str, str]]:
    (run,) = log["runs"]
    return [loc["physicalLocation"]["artifactLocation"] for r in run["results"] for loc in r["locations"]]


def test_locations_resolve_against_srcroot(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    inside = repo / "my models" / "bad.py"
    outside = tmp_path / "elsewhere" / "bad.py"
    for path in (inside, outside):
        path.parent.mkdir(parents=True)
        path.write_text(FAILING, encoding="utf-8")
    done = run_cli("my models/bad.py", str(outside), "--format", "sarif", "--no-cache", cwd=repo)
    log = json.loads(done.stdout)
    base = log["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"]
    assert base == repo.resolve().as_uri() + "/", base
    found = _artifacts(log)
    mine = [a for a in found if a.get("uriBaseId") == "SRCROOT"]
    assert mine and all(urljoin(base, a["uri"]) == inside.resolve().as_uri() for a in mine), found
    assert all(a["uri"] == "my%20models/bad.py" for a in mine), mine
    other = [a for a in found if "uriBaseId" not in a]
    assert other and all(a["uri"] == outside.resolve().as_uri() for a in other), found
