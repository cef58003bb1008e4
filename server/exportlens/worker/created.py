"""Where the object torch could not flatten out of forward was made: its constructor's caller.

An output torch cannot flatten (a cache object, a dataclass) stops the export after tracing
everything, with no line: torch names only its class ("Found <class 'transformers.cache_utils.
DynamicCache'> in output", strict: "UserDefinedObjectVariable(DynamicCache)"). Inside a library the
line to show is where the library builds it (`past_key_values = DynamicCache(config=self.config)`).
The eager pass the child makes after a failure anyway (eager.py) runs under `recording(record)`,
which wraps that class's `__init__` to keep the stack of its first call. In the child, with torch.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator
from typing import Any

from .records import FailureRecord
from .stepping import live_frames

_NON_STRICT = re.compile(r"Found <class '(?P<path>[\w.]+)'> in outputs?, which is not a known type")
_STRICT = re.compile(r"Encountered unrecognized type UserDefinedObjectVariable\((?P<name>\w+)\) at output")


@contextlib.contextmanager
def recording(record: FailureRecord) -> Iterator[None]:
    """Record in `record["created_at"]` where the unflattenable output's class is first built."""
    classes = _classes(str(record.get("message", "")))
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


def _classes(message: str) -> list[type]:
    """The classes the message names: by module path (non-strict), by name (strict: any module's)."""
    if found := _NON_STRICT.search(message):
        module, _, name = found["path"].rpartition(".")
        cls = getattr(sys.modules.get(module), name, None)
        return [cls] if isinstance(cls, type) else []
    if found := _STRICT.search(message):
        name = found["name"]
        candidates = {
            id(cls): cls
            for module in list(sys.modules.values())
            if isinstance(cls := getattr(module, name, None), type) and not _torch_class(cls)
        }
        return list(candidates.values())
    return []


def _torch_class(cls: type) -> bool:
    return cls.__module__.split(".")[0] in ("torch", "builtins", "typing", "collections")
