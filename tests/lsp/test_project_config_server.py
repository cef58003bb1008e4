"""Through the real server: library code is not checked, pyproject.toml's [tool.exportlens]
configures the check, a bad value is shown on its line, ignore comments silence a finding."""

from __future__ import annotations

from pathlib import Path

import torch
from lsprotocol import types

from tests.config.sources import BRANCHES, STAMPED

from .conftest import Session, line_of


async def test_torchs_own_linear_gets_no_diagnostic_no_lens_and_no_job(server: Session) -> None:
    linear = Path(torch.__file__).parent / "nn" / "modules" / "linear.py"
    await server.open("canary_stamped.py", STAMPED)
    before = (await server.command("exportlens.status"))["jobsSent"]
    assert before > 0, "the canary: a file of the workspace does send jobs"
    found = await server.open_uri(linear.resolve().as_uri(), linear.read_text(encoding="utf-8"))
    assert found == []
    assert await server.lenses(linear.resolve().as_uri()) == []
    assert (await server.command("exportlens.status"))["jobsSent"] == before


async def test_pyproject_mode_strict_without_editor_settings(server: Session) -> None:
    server.write("strictproj/pyproject.toml", '[tool.exportlens]\nmode = "strict"\n')
    found = await server.open("strictproj/stamped.py", STAMPED)
    assert [d.code for d in found] == ["untraceable-call"], found
    server.write("plainproj/pyproject.toml", '[project]\nname = "plain"\n')
    plain = await server.open("plainproj/stamped.py", STAMPED)
    assert "untraceable-call" not in [d.code for d in plain], "non-strict bakes time.time() in"


async def test_a_bad_value_is_an_error_on_its_pyproject_line(server: Session) -> None:
    uri, _ = server.write(
        "badproj/pyproject.toml", '[project]\nname = "bad"\n\n[tool.exportlens]\nmode = "fast"\n'
    )
    await server.open("badproj/model.py", "x = 1\n")
    await server.until(lambda: any(p.uri == uri and p.diagnostics for p in server.record.published))
    (error,) = next(p for p in reversed(server.record.published) if p.uri == uri).diagnostics
    assert (error.code, error.range.start.line, error.severity) == (
        "config-error",
        4,
        types.DiagnosticSeverity.Error,
    )
    assert "mode: 'fast' is not allowed" in error.message and '"strict"' in error.message


async def test_ignore_comments_and_exclude_in_the_editor(server: Session) -> None:
    found = await server.open("ignoring.py", BRANCHES)
    assert [(d.code, d.range.start.line) for d in found] == [
        ("data-dependent-branch", line_of(BRANCHES, "no-such-code")),
        ("unknown-ignore-code", line_of(BRANCHES, "no-such-code")),
    ]
    server.write("exclproj/pyproject.toml", '[tool.exportlens]\nexclude = ["gen/**"]\n')
    uri, text = server.write("exclproj/gen/model.py", BRANCHES)
    assert await server.open_uri(uri, text) == []
    assert await server.lenses(uri) == []


async def test_the_ignore_quick_fix_inserts_the_comment_that_silences_it(server: Session) -> None:
    source = BRANCHES.replace("  # exportlens: ignore[data-dependent-branch]", "").replace(
        "  # exportlens: ignore[no-such-code]", ""
    )
    uri, text = server.write("quickfix_ignore.py", source)
    found = await server.open_uri(uri, text)
    branch = next(d for d in found if d.code == "data-dependent-branch")
    actions = await server.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=branch.range,
            context=types.CodeActionContext(diagnostics=[branch]),
        )
    )
    (ignore,) = [a for a in actions or [] if isinstance(a, types.CodeAction) and a.title.startswith("Ignore")]
    assert ignore.title == "Ignore `data-dependent-branch` on this line" and ignore.edit is not None
    (change,) = ignore.edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit) and change.text_document.version == 1
    (edit,) = change.edits
    lines = text.splitlines()
    line = branch.range.start.line
    lines[line] = lines[line][: edit.range.start.character] + edit.new_text
    assert lines[line].endswith("  # exportlens: ignore[data-dependent-branch]")
    version = server.change(uri, "\n".join(lines) + "\n")
    after = await server.wait_checked(uri, version)
    assert [d.range.start.line for d in after if d.code == "data-dependent-branch"] != [line]
    assert line not in [d.range.start.line for d in after]
