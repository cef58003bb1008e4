"""Where the output torch could not flatten out of forward came from: where it was built, and the
`return` that handed it back.

torch refuses an output of a class its pytree does not know (a plain `@dataclass`, a library's
cache object) after tracing the whole forward, and names no line: non-strict says "Found <class
'm.DetectionOutput'> in output", strict (dynamo) "Encountered unrecognized type
UserDefinedObjectVariable(DetectionOutput) at output 0". The eager pass the child makes after a
failure anyway (eager.py) runs under `recording(record)`, which keeps
- `created_at`: the stack of the class's first construction (its `__init__` wrapped): inside a
  library, the line where the library builds it (`past_key_values = DynamicCache(...)`);
- `output_site`: the first non-torch frame (the innermost) returning an instance of it (a profile
  hook): the user's `return DetectionOutput(...)`, in whichever file or helper it is.
In the child, with torch.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator
from types import FrameType
from typing import Any

from ..wire.records import FailureRecord
from .stepping import live_frames

_NON_STRICT = re.compile(r"Found <class '(?P<path>[\w.]+)'> in outputs?, which is not a known type")
_STRICT = re.compile(r"Encountered unrecognized type UserDefinedObjectVariable\((?P<name>\w+)\) at output")
_TORCH = re.compile(r"/torch/")


@contextlib.contextmanager
def recording(record: FailureRecord) -> Iterator[None]:
    """Fill `record["created_at"]` and `record["output_site"]` for the output the message names."""
    name, classes = _named(str(record.get("message", "")))
    if name is None:
        yield
        return
    with _constructions(record, classes), _returns(record, name):
        yield


@contextlib.contextmanager
def _constructions(record: FailureRecord, classes: list[type]) -> Iterator[None]:
    patched: list[tuple[type, Any]] = []
    for cls in classes:
        original = cls.__dict__.get("__init__")
        inherited = cls.__init__  # type: ignore[misc]

        def init(self: Any, *args: Any, __inherited: Any = inherited, **kwargs: Any) -> None:
            if "created_at" not in record:
                record["created_at"] = live_frames(sys._getframe(1))
            __inherited(self, *args, **kwargs)

        try:
            cls.__init__ = init  # type: ignore[misc]
        except (TypeError, AttributeError):  # a class of C code: not ours to wrap
            continue
        patched.append((cls, original))
    try:
        yield
    finally:
        for cls, original in patched:
            if original is None:
                del cls.__init__  # type: ignore[misc]
            else:
                cls.__init__ = original  # type: ignore[misc]


@contextlib.contextmanager
def _returns(record: FailureRecord, name: str) -> Iterator[None]:
    def watch(frame: FrameType, event: str, arg: Any) -> None:
        if event != "return" or "output_site" in record or type(arg).__name__ != name:
            return
        path = frame.f_code.co_filename
        if not _TORCH.search(path):
            record["output_site"] = {"path": path, "line": frame.f_lineno, "name": frame.f_code.co_name}

    previous = sys.getprofile()
    sys.setprofile(watch)
    try:
        yield
    finally:
        sys.setprofile(previous)


def _named(message: str) -> tuple[str | None, list[type]]:
    """The class name the message gives, and the classes it may be: by module path (non-strict),
    by name (strict: any module's)."""
    if found := _NON_STRICT.search(message):
        module, _, name = found["path"].rpartition(".")
        cls = getattr(sys.modules.get(module), name, None)
        return name, [cls] if isinstance(cls, type) else []
    if found := _STRICT.search(message):
        name = found["name"]
        candidates = {
            id(cls): cls
            for module in list(sys.modules.values())
            if isinstance(cls := getattr(module, name, None), type) and not _torch_class(cls)
        }
        return name, list(candidates.values())
    return None, []


def _torch_class(cls: type) -> bool:
    return cls.__module__.split(".")[0] in ("torch", "builtins", "typing", "collections")
