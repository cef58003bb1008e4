"""Through the real server: editing a pyproject.toml on disk re-checks the open files it
configures under their new settings, without a reload (lsp/project_watch.py)."""

from __future__ import annotations

from lsprotocol import types

from tests.config.sources import STAMPED

from .conftest import Session


def changed(server: Session, uri: str) -> None:
    """What VS Code sends when its watcher sees the file change on disk."""
    event = types.FileEvent(uri=uri, type=types.FileChangeType.Changed)
    server.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[event]))


def last_codes(server: Session, uri: str) -> list[str]:
    published = [p for p in server.record.published if p.uri == uri]
    return [str(d.code) for d in published[-1].diagnostics] if published else []


async def test_the_server_watches_pyproject_files(server: Session) -> None:
    method = types.WORKSPACE_DID_CHANGE_WATCHED_FILES
    await server.until(lambda: any(r.method == method for r in server.record.registrations))
    (watch,) = [r for r in server.record.registrations if r.method == method]
    assert watch.register_options == {"watchers": [{"globPattern": "**/pyproject.toml"}]}


async def test_editing_the_mode_in_pyproject_rechecks_the_open_file(server: Session) -> None:
    pyproject, _ = server.write("watchproj/pyproject.toml", '[tool.exportlens]\nmode = "non-strict"\n')
    found = await server.open("watchproj/stamped.py", STAMPED)
    uri = (server.root / "watchproj" / "stamped.py").resolve().as_uri()
    assert "untraceable-call" not in [d.code for d in found], "non-strict bakes time.time() in"

    server.write("watchproj/pyproject.toml", '[tool.exportlens]\nmode = "strict"\n')
    changed(server, pyproject)
    await server.until(lambda: "untraceable-call" in last_codes(server, uri))

    server.write("watchproj/pyproject.toml", '[tool.exportlens]\nmode = "non-strict"\n')
    changed(server, pyproject)
    await server.until(lambda: last_codes(server, uri) and "untraceable-call" not in last_codes(server, uri))


async def test_a_bad_edit_is_reported_on_its_line_and_cleared_when_fixed(server: Session) -> None:
    pyproject, _ = server.write("watchbad/pyproject.toml", '[tool.exportlens]\nmode = "strict"\n')
    await server.open("watchbad/stamped.py", STAMPED)

    def config_errors() -> list[tuple[str, int]]:
        published = [p for p in server.record.published if p.uri == pyproject]
        return [(str(d.code), d.range.start.line) for d in published[-1].diagnostics] if published else []

    server.write("watchbad/pyproject.toml", '[tool.exportlens]\nmode = "strict"\ntimeout = "soon"\n')
    changed(server, pyproject)
    await server.until(lambda: config_errors() == [("config-error", 2)])
    server.write("watchbad/pyproject.toml", '[tool.exportlens]\nmode = "strict"\n')
    changed(server, pyproject)
    await server.until(lambda: config_errors() == [])

    server.write("watchbad/pyproject.toml", '[tool.exportlens]\nmode = "fast"\n')
    changed(server, pyproject)
    await server.until(lambda: config_errors() == [("config-error", 1)])
    (server.root / "watchbad" / "pyproject.toml").unlink()
    changed(server, pyproject)
    await server.until(lambda: config_errors() == [])
