"""Where the forward built the output torch cannot flatten: the `return` that handed it back.

torch refuses an output of a class its pytree does not know (a plain `@dataclass`) after tracing
the whole forward, and names no user line: non-strict says "Found <class 'm.DetectionOutput'> in
output", strict (dynamo) "Encountered unrecognized type UserDefinedObjectVariable(DetectionOutput)
at output 0". The eager pass a failure makes anyway runs under a profile hook that notes the first
Python frame (the innermost) returning an object of that class: the `return DetectionOutput(...)`,
in whichever file or helper it is.
"""

from __future__ import annotations

import re
import sys
from types import FrameType, TracebackType
from typing import Any

from .records import FailureRecord, Frame

_NAMED = re.compile(
    r"Found <class '(?:[\w.]+\.)?(?P<found>\w+)'> in outputs?, which is not a known type"
    r"|Encountered unrecognized type UserDefinedObjectVariable\((?P<dynamo>\w+)\) at output"
)
_TORCH = re.compile(r"/torch/")


class OutputSite:
    """A context whose `found` is the frame that first returned an instance of class `name`."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.found: Frame | None = None
        self._previous: Any = None

    def __enter__(self) -> OutputSite:
        self._previous = sys.getprofile()
        sys.setprofile(self._watch)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        sys.setprofile(self._previous)

    def _watch(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "return" or self.found is not None or type(arg).__name__ != self.name:
            return
        path = frame.f_code.co_filename
        if not _TORCH.search(path):
            self.found = {"path": path, "line": frame.f_lineno, "name": frame.f_code.co_name}


def watch_for(record: FailureRecord) -> OutputSite | None:
    """A watch for the class the record says torch could not flatten, else None."""
    match = _NAMED.search(record.get("message", ""))
    return OutputSite(match["found"] or match["dynamo"]) if match else None
