"""Nothing that goes wrong inside the server is shown to the user as an error toast.

pygls shows every error it catches as `window/showMessage` "Error in server: ...". The server
logs them instead (`window/logMessage`, the output channel), with their traceback. Its own
server: its client answers progress-bar requests late, and the bad buffers stay out of others'.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import SERVER_DIR, WAIT, Session, initialize, line_of, make_client

# An export that outlasts progress.DELAY, so the server asks the client for a progress bar.
SLOW = """
    import time

    import torch


    class Slow(torch.nn.Module):
        def example_inputs(self):
            return (torch.ones(2),)

        def forward(self, x):
            time.sleep(1.0)
            return x + 1
"""

# Fails on its own line, whatever else the server finds: the server still checks.
BRANCHY = """
    import torch


    class Branchy(torch.nn.Module):
        def example_inputs(self):
            return (torch.ones(3),)

        def forward(self, x):
            if x.sum() > 0:
                return x
            return -x
"""


def fails_on_the_branch(diagnostics: list[types.Diagnostic]) -> bool:
    line = line_of(BRANCHY, "if x.sum() > 0")
    return any(
        d.severity == types.DiagnosticSeverity.Error and d.range.start.line == line for d in diagnostics
    )


class LateProgress:
    """A client's answer to `window/workDoneProgress/create` that comes only once the check that
    asked for the progress bar is over, i.e. after the server cancelled the task awaiting it."""

    def __init__(self, checked: list[dict[str, Any]]) -> None:
        self.checked = checked  # the client's exportlens/fileChecked notifications
        self.asked: list[str] = []
        self.answered: list[str] = []

    async def create(self, ls: LanguageClient, params: types.WorkDoneProgressCreateParams) -> None:
        self.asked.append(str(params.token))
        mark = len(self.checked)

        async def check_over() -> None:
            while len(self.checked) == mark:
                await asyncio.sleep(0.02)

        await asyncio.wait_for(check_over(), WAIT)
        ls.progress_reports.setdefault(params.token, [])
        self.answered.append(str(params.token))


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def toasts(tmp_path_factory: Any) -> AsyncIterator[tuple[Session, LateProgress]]:
    root = tmp_path_factory.mktemp("toasts").resolve()
    client = make_client(own=frozenset({types.WINDOW_WORK_DONE_PROGRESS_CREATE}))
    late = LateProgress(client.record.checked)  # type: ignore[attr-defined]

    @client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
    async def create(ls: LanguageClient, params: types.WorkDoneProgressCreateParams) -> None:
        await late.create(ls, params)

    env = {**os.environ, "PYTHONPATH": SERVER_DIR}
    await client.start_io(sys.executable, "-m", "exportlens", "serve", env=env, cwd=str(root))
    session = await initialize(client, root, {"debounceMs": 0, "timeoutSeconds": 60})
    yield session, late
    await session.client.shutdown_session()
    await session.client.stop()


def error_toasts(session: Session) -> list[str]:
    """Every window/showMessage of type Error the client received (the default client feature
    records each showMessage in `client.messages`)."""
    return [m.message for m in session.client.messages if m.type == types.MessageType.Error]


def logged_errors(session: Session) -> list[str]:
    return [m.message for m in session.client.log_messages if m.type == types.MessageType.Error]


async def settled(session: Session) -> None:
    """Messages are handled in order: once this request is answered, all sent before it were."""
    await session.command("exportlens.status")


async def test_a_late_answer_to_a_cancelled_request_is_no_error(toasts: tuple[Session, LateProgress]) -> None:
    session, late = toasts
    uri, text = session.write("late_progress.py", SLOW)
    assert await session.open_uri(uri, text) == []
    assert late.asked, "the export was quicker than progress.DELAY: no progress bar was asked for"
    await session.until(lambda: len(late.answered) == len(late.asked))
    await settled(session)
    assert error_toasts(session) == []
    assert logged_errors(session) == []

    # the server goes on: the next check publishes its finding
    version = session.change(uri, BRANCHY)
    assert fails_on_the_branch(await session.wait_checked(uri, version))
    await settled(session)
    assert error_toasts(session) == []


@pytest.mark.parametrize(
    "provoke, error",
    [
        # A URI with a NUL byte: our didOpen handler cannot make a path of it.
        ("open", "ValueError: embedded null byte"),
        # didChange of a buffer never opened: pygls's part of the handler has no such document.
        ("change", "KeyError"),
    ],
)
async def test_a_notification_handler_error_is_logged_not_shown(
    toasts: tuple[Session, LateProgress], provoke: str, error: str
) -> None:
    session, _ = toasts
    logged = len(logged_errors(session))
    if provoke == "open":
        uri = session.root.as_uri() + "/nul%00byte.py"
        session.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text="x = 1\n")
            )
        )
    else:
        session.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=(session.root / "never_opened.py").as_uri(), version=2
                ),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text="x = 2\n")],
            )
        )
    await settled(session)
    assert error_toasts(session) == []
    (message,) = logged_errors(session)[logged:]
    assert error in message and "Traceback (most recent call last)" in message, message

    # and the server goes on
    uri, text = session.write(f"after_{provoke}.py", BRANCHY)
    assert fails_on_the_branch(await session.open_uri(uri, text))
    assert error_toasts(session) == []
