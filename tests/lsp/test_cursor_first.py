"""The module under the editor's cursor is checked first (lsp/cursor.py, check/plan.py): on open,
its findings are published before the other modules' are, through the real server and worker."""

from __future__ import annotations

from exportlens.lsp.cursor import CURSOR
from tests.paths import ROOT

from .conftest import Session, line_of

TWO = """
import torch
from torch import nn


class First(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x


class Second(nn.Module):
    def forward(self, x):
        if x.mean() > 0:
            return x + 1
        return x


torch.export.export(First(), (torch.randn(2, 4),))
torch.export.export(Second(), (torch.randn(2, 4),))
"""


def _first_published(server: Session, uri: str, mark: int) -> list[int]:
    """The lines of the first non-empty diagnostics published for `uri` after `mark`."""
    found = [p for p in server.record.published[mark:] if p.uri == uri and p.diagnostics]
    return sorted(d.range.start.line for d in found[0].diagnostics)


async def _open_with_cursor(server: Session, name: str, cursor: int | None) -> tuple[str, int]:
    uri, text = server.write(name, TWO)
    mark = len(server.record.published)
    checked = len(server.record.checked)
    if cursor is not None:  # as the client does: just before the buffer's didOpen
        server.client.protocol.notify(CURSOR, {"uri": uri, "line": cursor})
    server.send_open(uri, text)
    await server.wait_checked(uri, 1, checked)
    return uri, mark


async def test_the_module_under_the_cursor_is_published_first(server: Session) -> None:
    first, second = line_of(TWO, "x.sum() > 0"), line_of(TWO, "x.mean() > 0")
    uri, mark = await _open_with_cursor(server, "cursor_second.py", line_of(TWO, "return x + 1"))
    assert _first_published(server, uri, mark) == [second]
    assert sorted(d.range.start.line for d in server.diagnostics(uri, 1)) == [first, second]


async def test_without_a_cursor_the_file_order_holds(server: Session) -> None:
    first = line_of(TWO, "x.sum() > 0")
    uri, mark = await _open_with_cursor(server, "cursor_none.py", None)
    assert first in _first_published(server, uri, mark)


def test_the_client_sends_the_notification_the_server_registers() -> None:
    protocol = (ROOT / "extension" / "src" / "protocol.ts").read_text(encoding="utf-8")
    assert f"new NotificationType<CursorParams>('{CURSOR}')" in protocol
