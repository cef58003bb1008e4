"""Column conversions: torch/CPython report UTF-8 byte offsets, LSP wants UTF-16."""

from __future__ import annotations

import re

from .findings import Range


def utf8_to_utf16(line_text: str, byte_col: int) -> int:
    """Map a UTF-8 byte offset within `line_text` to UTF-16 code units."""
    prefix = line_text.encode("utf-8")[: max(byte_col, 0)].decode("utf-8", errors="ignore")
    return utf16_len(prefix)


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


LINE_BREAK = re.compile(r"\r\n|\r|\n")


class SourceText:
    """A buffer's lines, for turning (line, byte col) pairs into LSP ranges."""

    def __init__(self, text: str) -> None:
        # Python's and LSP's lines: only \r\n, \r, \n end one (not \f, \x1c-\x1e, \x85, \u2028)
        self.lines = LINE_BREAK.split(text)

    def line(self, line0: int) -> str:
        return self.lines[line0] if 0 <= line0 < len(self.lines) else ""

    def line_range(self, line0: int) -> Range:
        """The line without its indentation and trailing blanks."""
        text = self.line(line0)
        stripped = text.strip()
        start = utf16_len(text[: len(text) - len(text.lstrip())])
        return Range.of(line0, start, line0, start + utf16_len(stripped))

    def span(
        self, line0: int, byte_col: int | None, end_line0: int | None, end_byte_col: int | None
    ) -> Range:
        """Range from CPython-style positions; falls back to the whole line."""
        if byte_col is None:
            return self.line_range(line0)
        start = utf8_to_utf16(self.line(line0), byte_col)
        if end_line0 is None or end_byte_col is None:
            return Range.of(line0, start, line0, max(start, utf16_len(self.line(line0).rstrip())))
        end = utf8_to_utf16(self.line(end_line0), end_byte_col)
        if (end_line0, end) < (line0, start):  # a position past the text: never end before start
            end_line0, end = line0, start
        return Range.of(line0, start, end_line0, end)
