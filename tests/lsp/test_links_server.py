"""A code's link is one (issue 42, item 6): the editor's codeDescription, the CLI's text and SARIF
name the same page for a finding, the code's section of docs/codes.md (not torch's generic export
page). The real server (pytest-lsp) and the real CLI on one file."""

from __future__ import annotations

import json

from tests.cli.test_cli import run_cli
from tests.lsp.models import GUARDED
from tests.paths import ROOT

from .conftest import Session


async def test_the_editor_and_the_cli_link_the_same_section(server: Session) -> None:
    found = await server.open("linked.py", GUARDED)
    (branch,) = [d for d in found if d.code == "data-dependent-branch"]
    assert branch.code_description is not None, branch
    href = branch.code_description.href
    assert href == (ROOT / "docs" / "codes.md").as_uri() + "#data-dependent-branch", href
    text = run_cli("linked.py", "--no-cache", cwd=server.root).stdout
    assert f"docs[data-dependent-branch]: {href}" in text.splitlines(), text
    sarif = json.loads(run_cli("linked.py", "--format", "sarif", cwd=server.root).stdout)
    (rule,) = [r for r in sarif["runs"][0]["tool"]["driver"]["rules"] if r["id"] == "data-dependent-branch"]
    assert rule["helpUri"] == href, rule
