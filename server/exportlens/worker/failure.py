"""Reduce an exception from a job to a JSON failure record (in the child, with torch).

The record carries torch's structured fields (`gb_type`, `error_type`,
`real_stack`, `cond`, the op of a missing fake kernel) next to the text, so
the caller-side mapper keys on those first and falls back to the message text
only for older torch versions.  Frames keep CPython's columns (UTF-8 bytes).

For a constraint violation torch's non-strict message has no location at all
(strict's only sometimes), so `guard_sites` re-runs the same export once with
a hook on the ShapeEnv that records which user line added each shape guard.
"""

from __future__ import annotations

import os
import re
import sys
import traceback
import types
from typing import Any

MESSAGE_LIMIT = 20_000
CHAIN_LIMIT = 4
GUARD_SITES_LIMIT = 200
_GB = re.compile(r"/gb/(gb\d+)\.html")


def describe_failure(exc: BaseException, stage: str, attempt: Any, strict: bool, path: str) -> dict[str, Any]:
    record: dict[str, Any] = {
        "stage": stage,
        "strict": strict,
        "exc_type": type(exc).__name__,
        "exc_mro": [c.__name__ for c in type(exc).__mro__],
        "message": _text(exc)[:MESSAGE_LIMIT],
        "frames": _frames(traceback.extract_tb(exc.__traceback__)),
        "chain": _chain(exc),
    }
    gb_type = getattr(exc, "gb_type", None)
    if gb_type is None and isinstance(exc.__context__, BaseException):
        gb_type = getattr(exc.__context__, "gb_type", None)  # UncapturedHigherOrderOpError wraps one
    if gb_type is not None:
        record["gb_type"] = str(gb_type)
    if match := _GB.search(record["message"]):
        record["gb_id"] = match.group(1)
    error_type = getattr(exc, "error_type", None)
    if error_type is not None:
        record["error_type"] = getattr(error_type, "name", str(error_type))
    cond = getattr(exc, "cond", None)
    if cond is None and isinstance(exc.__context__, BaseException):
        cond = getattr(exc.__context__, "cond", None)
    if cond is not None:
        record["cond"] = str(cond)
    real_stack = getattr(exc, "real_stack", None)
    if real_stack:
        record["real_stack"] = _frames(real_stack)
    func = getattr(exc, "func", None) or getattr(exc.__cause__, "func", None)
    if func is not None:
        record["op"] = str(func)
    return record


def _text(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception as inner:  # noqa: BLE001 - a user exception's __str__ may itself fail
        return f"<unprintable {type(exc).__name__}: {inner!r}>"


def _chain(exc: BaseException) -> list[dict[str, Any]]:
    """The exceptions behind this one (cause/context), innermost last."""
    out: list[dict[str, Any]] = []
    seen = {id(exc)}
    inner = exc.__cause__ or exc.__context__
    while inner is not None and id(inner) not in seen and len(out) < CHAIN_LIMIT:
        seen.add(id(inner))
        out.append(
            {
                "exc_type": type(inner).__name__,
                "exc_mro": [c.__name__ for c in type(inner).__mro__],
                "message": _text(inner)[:2000],
                "frames": _frames(traceback.extract_tb(inner.__traceback__)),
            }
        )
        inner = inner.__cause__ or inner.__context__
    return out


def _frames(stack: Any) -> list[dict[str, Any]]:
    return [
        {
            "path": f.filename,
            "line": f.lineno,
            "end_line": getattr(f, "end_lineno", None),
            "col": getattr(f, "colno", None),
            "end_col": getattr(f, "end_colno", None),
            "name": f.name,
        }
        for f in stack
    ]


# -- where a shape guard came from ------------------------------------------------


def _library_dirs() -> tuple[str, ...]:
    import torch

    here = os.path.dirname(os.path.abspath(__file__))
    dirs = {os.path.dirname(torch.__file__), os.path.dirname(here), os.path.dirname(os.__file__)}
    return tuple(d + os.sep for d in dirs)


def _user_frames(frame: types.FrameType | None, skip: tuple[str, ...]) -> list[dict[str, Any]]:
    """Workspace frames of the live stack, outermost first, with columns."""
    found: list[dict[str, Any]] = []
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith(skip) and not name.startswith("<") and "site-packages" not in name:
            pos: tuple[Any, ...] = (frame.f_lineno, None, None, None)
            try:
                pos = list(frame.f_code.co_positions())[frame.f_lasti // 2]  # type: ignore[attr-defined]
            except (AttributeError, IndexError):
                pass
            found.append(
                {
                    "path": name,
                    "line": pos[0] or frame.f_lineno,
                    "end_line": pos[1],
                    "col": pos[2],
                    "end_col": pos[3],
                    "name": frame.f_code.co_name,
                }
            )
        frame = frame.f_back
    found.reverse()
    return found


def _dynamo_user_frames() -> list[dict[str, Any]]:
    """In strict mode the user's stack is dynamo's symbolic one."""
    try:
        from torch._guards import TracingContext

        stack = TracingContext.extract_stack()
    except Exception:  # noqa: BLE001 - best effort
        return []
    return _frames(stack)


def guard_sites(attempt: Any, strict: bool) -> list[dict[str, Any]]:
    """Re-run the export, recording each shape guard with the user frames that added it.

    Only called after a constraint violation; costs about one more export of the module.
    """
    import torch
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    skip = _library_dirs()
    sites: list[dict[str, Any]] = []
    original = ShapeEnv._maybe_guard_rel

    def record(self: Any, expr: Any) -> Any:
        if len(sites) < GUARD_SITES_LIMIT:
            frames = _dynamo_user_frames() if strict else _user_frames(sys._getframe(1), skip)
            frames = [f for f in frames if not str(f["path"]).startswith(skip)]
            if frames:
                sites.append(
                    {
                        "expr": str(expr),
                        "kind": _guard_kind(expr),
                        "symbols": sorted(str(s) for s in getattr(expr, "free_symbols", ())),
                        "sources": {
                            str(s): [_source_name(src) for src in self.var_to_sources.get(s, [])][:2]
                            for s in getattr(expr, "free_symbols", ())
                        },
                        "frames": frames,
                    }
                )
        return original(self, expr)

    ShapeEnv._maybe_guard_rel = record  # type: ignore[method-assign, assignment]
    try:
        torch.export.export(
            attempt.module,
            attempt.args,
            attempt.kwargs or None,
            dynamic_shapes=attempt.dynamic_shapes,
            strict=strict,
        )
    except BaseException:  # noqa: BLE001, S110 - the failure is known; only the guards matter
        pass
    finally:
        ShapeEnv._maybe_guard_rel = original  # type: ignore[method-assign]
    return sites


def _source_name(source: Any) -> str:
    name = getattr(source, "name", "")
    return str(name() if callable(name) else name)  # a method in older torch, a property in newer


def _guard_kind(expr: Any) -> str:
    """eq-const | eq-sym | range | ne | other, from the sympy relation."""
    name = type(expr).__name__
    lhs, rhs = getattr(expr, "lhs", None), getattr(expr, "rhs", None)
    if name in ("Equality", "Eq"):
        number = getattr(lhs, "is_number", False) or getattr(rhs, "is_number", False)
        symbols: set[Any] = getattr(expr, "free_symbols", set())
        return "eq-const" if number or len(symbols) == 1 else "eq-sym"
    if name in ("Unequality", "Ne"):
        return "ne"
    if name in ("StrictLessThan", "LessThan", "StrictGreaterThan", "GreaterThan"):
        return "range"
    return "other"
