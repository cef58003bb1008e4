"""Drive the real server (`python -m exportlens serve`) with pytest-lsp, against the real worker.

One trusted server for the run (`server` fixture) in a temp workspace, plus an
untrusted one in test_untrusted.py; tests wait
for the server's `exportlens/fileChecked` notification instead of sleeping.
"""

from __future__ import annotations

import asyncio
import os
import sys
import textwrap
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest_asyncio
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES

from tests.conftest import WORKER_PYTHON

SERVER_DIR = str(Path(__file__).resolve().parents[2] / "server")
CHECKED = "exportlens/fileChecked"
# Generous guard so a broken server fails the test instead of hanging it; never asserted on.
WAIT = 120.0


@dataclass
class Record:
    published: list[types.PublishDiagnosticsParams] = field(default_factory=list)
    checked: list[dict[str, Any]] = field(default_factory=list)
    registrations: list[types.Registration] = field(default_factory=list)  # client/registerCapability


def make_client(own: frozenset[str] = frozenset()) -> LanguageClient:
    """A recording client; the caller registers its own handlers for the methods in `own`."""
    client = LanguageClient()
    record = Record()
    client.record = record  # type: ignore[attr-defined]
    for method, handler in DEFAULT_CLIENT_FEATURES.items():
        if method != types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS and method not in own:
            client.feature(method)(handler)

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(ls: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        record.published.append(params)
        ls.diagnostics[params.uri] = params.diagnostics

    @client.feature(CHECKED)
    def on_checked(ls: LanguageClient, params: Any) -> None:
        # custom notifications arrive as pygls `Object`s (named tuples)
        record.checked.append({k: getattr(params, k) for k in ("uri", "version", "cancelled")})

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def on_register(ls: LanguageClient, params: types.RegistrationParams) -> None:
        record.registrations.extend(params.registrations)

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def on_lens_refresh(ls: LanguageClient, params: None) -> None:
        return None

    return client


class Session:
    """A client connected to one server, with helpers to edit and wait."""

    def __init__(self, client: LanguageClient, root: Path) -> None:
        self.client = client
        self.root = root
        self.versions: dict[str, int] = {}

    @property
    def record(self) -> Record:
        return self.client.record  # type: ignore[attr-defined,no-any-return]

    def write(self, name: str, source: str) -> tuple[str, str]:
        """Write a dedented file into the workspace; returns (uri, text)."""
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        text = textwrap.dedent(source).lstrip("\n")
        path.write_text(text, encoding="utf-8")
        return path.resolve().as_uri(), text

    async def open(self, name: str, source: str) -> list[types.Diagnostic]:
        """Write the file, open it; its diagnostics once checked."""
        return await self.open_uri(*self.write(name, source))

    async def open_uri(self, uri: str, text: str) -> list[types.Diagnostic]:
        """didOpen of a buffer (that need not exist on disk); its diagnostics once checked."""
        mark = len(self.record.checked)
        self.send_open(uri, text)
        return await self.wait_checked(uri, 1, mark)

    def send_open(self, uri: str, text: str) -> None:
        """didOpen at version 1, not waiting for its check (a test that looks while it runs)."""
        self.versions[uri] = 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
            )
        )

    def change(self, uri: str, text: str) -> int:
        """Replace the whole buffer; returns the new version."""
        version = self.versions[uri] = self.versions[uri] + 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangeWholeDocument(text=textwrap.dedent(text).lstrip("\n"))
                ],
            )
        )
        return version

    def edit(self, uri: str, line: int, start: int, end: int, new: str) -> int:
        """An incremental edit of one line's [start, end) columns."""
        version = self.versions[uri] = self.versions[uri] + 1
        where = types.Range(
            start=types.Position(line=line, character=start), end=types.Position(line=line, character=end)
        )
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangePartial(range=where, text=new)],
            )
        )
        return version

    async def until(self, condition: Callable[[], bool]) -> None:
        async def poll() -> None:
            while not condition():
                await asyncio.sleep(0.02)

        await asyncio.wait_for(poll(), WAIT)

    async def wait_checked(self, uri: str, version: int, mark: int = 0) -> list[types.Diagnostic]:
        """Wait for the check of `version` to finish; its last published diagnostics."""
        await self.until(
            lambda: any(c["uri"] == uri and c["version"] == version for c in self.record.checked[mark:])
        )
        return self.diagnostics(uri, version)

    def diagnostics(self, uri: str, version: int) -> list[types.Diagnostic]:
        found = [p for p in self.record.published if p.uri == uri and p.version == version]
        assert found, f"nothing published for {uri} version {version}"
        return list(found[-1].diagnostics)

    async def command(self, name: str, *arguments: Any) -> Any:
        return await self.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=name, arguments=list(arguments))
        )

    async def hover(self, uri: str, line: int, character: int) -> str | None:
        result = await self.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=line, character=character),
            )
        )
        if result is None:
            return None
        assert isinstance(result.contents, types.MarkupContent)
        return result.contents.value

    async def lenses(self, uri: str) -> list[str]:
        result = await self.client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        return [lens.command.title for lens in result or [] if lens.command]

    def close(self, uri: str) -> None:
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )

    async def set_settings(self, **settings: Any) -> None:
        """Change settings the way VS Code does: the client's value, then a change notification."""
        current = self.client.get_configuration(section="exportlens") or {}
        self.client.set_configuration({**current, **settings}, section="exportlens")
        self.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))

        # the server pulls the new values from us: wait until it has them
        async def applied() -> None:
            while True:
                status = await self.command("exportlens.status")
                if all(status["settings"][name] == value for name, value in settings.items()):
                    return
                await asyncio.sleep(0.02)

        await asyncio.wait_for(applied(), WAIT)


async def start(
    root: Path,
    settings: dict[str, Any],
    init: dict[str, Any] | None = None,
    start_worker: bool = False,
    env: dict[str, str] | None = None,
) -> Session:
    """`start_worker`: as the extension launches it in a trusted workspace (early_worker.py).
    `env`: variables added to this process's."""
    env = dict(os.environ, **(env or {}), PYTHONPATH=SERVER_DIR)
    early = ["--start-worker"] if start_worker else []
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "exportlens", "serve", *early],
        client_factory=make_client,
        server_env=env,
    )
    client = await config.start()
    assert isinstance(client, LanguageClient)
    return await initialize(client, root, settings, init)


async def initialize(
    client: LanguageClient, root: Path, settings: dict[str, Any], init: dict[str, Any] | None = None
) -> Session:
    """Configure and initialize a started client as VS Code would, with `root` as its one folder.
    The server uses no worker daemon unless `settings` turn it on (test_daemon_server.py): a
    daemon another test left must not change this test's worker."""
    client.set_configuration({"daemon": False, **settings}, section="exportlens")
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
            initialization_options=init or {},
        )
    )
    return Session(client, root)


async def stop(session: Session) -> None:
    await session.client.shutdown_session()
    await session.client.stop()


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def shared_server(tmp_path_factory: Any) -> AsyncIterator[Session]:
    """One trusted server (and warm worker) for the whole run, no debounce: tests wait on
    notifications, not time."""
    root = tmp_path_factory.mktemp("ws").resolve()
    settings: dict[str, Any] = {"debounceMs": 0, "timeoutSeconds": 60}
    if WORKER_PYTHON:  # another torch for the worker (tools/versions.mk); the server runs here
        settings["python"] = WORKER_PYTHON
    session = await start(root, settings)
    yield session
    await stop(session)


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def server(shared_server: Session) -> AsyncIterator[Session]:
    """The shared server; the files a test module opened are closed after it (file names are
    unique across modules), so settings changes later re-check only the next module's files."""
    yield shared_server
    for uri in list(shared_server.versions):
        shared_server.close(uri)
    shared_server.versions.clear()


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(textwrap.dedent(text).lstrip("\n").splitlines()) if needle in line)
