"""Framing between engine and worker: one JSON object per line."""

from __future__ import annotations

import json
import os
from typing import Any


def encode(message: dict[str, Any]) -> bytes:
    return (json.dumps(message, default=repr, ensure_ascii=False) + "\n").encode("utf-8")


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            import select

            select.select([], [fd], [])
            continue
        view = view[written:]


class LineReader:
    """Accumulates bytes from a non-blocking fd and yields complete lines."""

    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        return [json.loads(line) for line in lines if line.strip()]
