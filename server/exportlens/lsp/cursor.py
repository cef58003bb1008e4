"""`exportlens/cursor` (client → server): the line the user's cursor is on in a buffer, so that the
module they are looking at is checked first (check/plan.py puts it with the modules an edit
touched). Only ordering depends on it: what a check runs and finds is the same without it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import ExportLensServer

CURSOR = "exportlens/cursor"  # params: {uri, line} (0-based)


def register(server: ExportLensServer) -> None:
    @server.feature(CURSOR)
    def cursor_moved(ls: ExportLensServer, params: Any) -> None:
        uri, line = _field(params, "uri"), _field(params, "line")
        # the client sends it just before a buffer's didOpen too, so that the first check has it
        if isinstance(uri, str) and isinstance(line, int) and line >= 0:
            ls.session.cursors[uri] = line


def _field(params: Any, name: str) -> Any:
    """pygls hands an unknown method's params as an object with attributes (a dict from some clients)."""
    return params.get(name) if isinstance(params, dict) else getattr(params, name, None)
