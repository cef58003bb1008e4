"""Reduce an exception from a job to a failure record (records.FailureRecord; in the child, with torch).

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
from typing import Any, Literal

from .graph_breaks import causes, graph_break
from .records import ChainedException, FailureRecord, Frame, GuardSite, Stage

MESSAGE_LIMIT = 20_000
CHAIN_LIMIT = 4
GUARD_SITES_LIMIT = 400
LIBRARY_FRAMES_PER_SITE = 4  # innermost library frames kept per guard: real models nest deeply
_EXPORT_ENTRY = re.compile(r"/torch/(export|_export|_dynamo)/")
_TORCH_PATH = re.compile(r"/(torch|functorch|torchgen)/")


def describe_failure(
    exc: BaseException, stage: Stage, attempt: Any, strict: bool, path: str
) -> FailureRecord:
    frames = traceback.extract_tb(exc.__traceback__)
    if stage == "export" and _raised_by_exportlens(frames):
        stage = "internal"  # the export itself went through: reading its result failed (our bug)
    record: FailureRecord = {
        "stage": stage,
        "strict": strict,
        "exc_type": type(exc).__name__,
        "exc_mro": [c.__name__ for c in type(exc).__mro__],
        "message": _text(exc)[:MESSAGE_LIMIT],
        "frames": _frames(frames),
        "chain": _chain(exc),
    }
    gb_type, gb_id = graph_break(exc, record["message"])
    if gb_type:
        record["gb_type"] = gb_type
    if gb_id:
        record["gb_id"] = gb_id
    error_type = getattr(exc, "error_type", None)
    if error_type is not None:
        record["error_type"] = getattr(error_type, "name", str(error_type))
    # The guard's condition sits on the GuardOnDataDependentSymNode, which torch wraps (2.13:
    # as __context__ of the UserError, 2.15: deeper in the chain).
    cond = next((c for e in causes(exc) if (c := getattr(e, "cond", None)) is not None), None)
    if cond is not None:
        record["cond"] = str(cond)
    real_stack = getattr(exc, "real_stack", None)
    if real_stack:
        record["real_stack"] = _frames(real_stack)
    # The operator of an UnsupportedOperatorException, however deep torch wrapped it.
    func = next((f for e in causes(exc) if hasattr(f := getattr(e, "func", None), "_schema")), None)
    if func is not None:
        record["op"] = str(func)
    return record


def _raised_by_exportlens(frames: Any) -> bool:
    """The job's code called ExportLens's own code (not torch) and that raised: an internal error."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    mine = [f.filename.startswith(here) for f in frames]
    exporting = any(_EXPORT_ENTRY.search(f.filename) for f in frames)
    # frames[0] is where the job caught it; below it, ExportLens's code ran and torch.export did not.
    return any(mine[1:]) and not exporting


def _text(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception as inner:  # noqa: BLE001 - a user exception's __str__ may itself fail
        return f"<unprintable {type(exc).__name__}: {inner!r}>"


def _chain(exc: BaseException) -> list[ChainedException]:
    """The exceptions behind this one (cause/context), innermost last."""
    out: list[ChainedException] = []
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


def _frames(stack: Any) -> list[Frame]:
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


def _user_frames(frame: types.FrameType | None, skip: tuple[str, ...]) -> list[Frame]:
    """Frames of the live stack outside torch, the standard library and ExportLens, outermost first.

    Library frames (site-packages: transformers, timm, ...) are kept: when a
    library line added the guard, the finding names it; the mapper keeps the
    workspace frames for the culprit.
    """
    found: list[Frame] = []
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith(skip) and not name.startswith("<") and not _TORCH_PATH.search(name):
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


def _trim_library(frames: list[Frame]) -> list[Frame]:
    """Every non-library frame, and only the innermost few library (site-packages) frames."""
    library = [i for i, f in enumerate(frames) if _is_library(str(f["path"]))]
    drop = set(library[:-LIBRARY_FRAMES_PER_SITE])
    return [f for i, f in enumerate(frames) if i not in drop]


def _is_library(path: str) -> bool:
    return "/site-packages/" in path or "/dist-packages/" in path


def _dynamo_user_frames() -> list[Frame]:
    """In strict mode the user's stack is dynamo's symbolic one."""
    try:
        from torch._guards import TracingContext

        stack = TracingContext.extract_stack()
    except Exception:  # noqa: BLE001 - best effort
        return []
    return _frames(stack)


def guard_sites(attempt: Any, strict: bool) -> list[GuardSite]:
    """Re-run the export, recording each shape guard with the user frames that added it.

    Only called after a constraint violation; costs about one more export of the module.
    The re-run is non-strict even for a strict failure when that shows the same violation:
    the same code adds the same guards, and on a real model a strict export costs 2-3x a
    non-strict one (vit-pytorch SimpleViT: 67 s vs 22 s here).
    """
    if strict:
        sites, violated = _record_sites(attempt, strict=False)
        if violated and sites:
            return sites
    return _record_sites(attempt, strict)[0]


def _record_sites(attempt: Any, strict: bool) -> tuple[list[GuardSite], bool]:
    """The guard sites of one export, and whether it ended in a constraint violation."""
    import torch
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    skip = _library_dirs()
    sites: list[GuardSite] = []
    seen: set[str] = set()  # a real model repeats each guard once per layer: the first one is the origin
    original = ShapeEnv._maybe_guard_rel

    def record(self: Any, expr: Any) -> Any:
        text = str(expr)
        if len(sites) < GUARD_SITES_LIMIT and text not in seen:
            seen.add(text)
            frames = _dynamo_user_frames() if strict else _user_frames(sys._getframe(1), skip)
            frames = [f for f in frames if not str(f["path"]).startswith(skip)]
            frames = _trim_library(frames)
            if frames:
                frames += _layer_frame(sys._getframe(1), skip)
                sites.append(
                    {
                        "expr": text,
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
    violated = False
    try:
        torch.export.export(
            attempt.module,
            attempt.args,
            attempt.kwargs or None,
            dynamic_shapes=attempt.dynamic_shapes,
            strict=strict,
        )
    except BaseException as exc:  # noqa: BLE001 - the failure is known; only the guards matter
        violated = needs_guard_sites(_text(exc), _frames(traceback.extract_tb(exc.__traceback__)))
    finally:
        ShapeEnv._maybe_guard_rel = original  # type: ignore[method-assign]
    return sites, violated


# torch's own layers (nn.LSTM, F.interpolate): a guard made there is theirs, not a static partner's.
_TORCH_LAYER = re.compile(r"/torch/nn/(modules/(?!module\.py)\w+\.py|functional\.py)$")


def _layer_frame(frame: types.FrameType | None, skip: tuple[str, ...]) -> list[Frame]:
    """The innermost torch.nn layer frame between the guard and the user's innermost frame, if any.

    Kept after the user frames (torch's `nn.LSTM.forward` unrolls the time steps through its
    decomposition): the mapper names it as the library line, the culprit stays the user's.
    """
    while frame is not None:
        name = frame.f_code.co_filename
        if _TORCH_LAYER.search(name):
            return [
                {
                    "path": name,
                    "line": frame.f_lineno,
                    "end_line": None,
                    "col": None,
                    "end_col": None,
                    "name": frame.f_code.co_name,
                }
            ]
        if not name.startswith((*skip, "<")) and not _TORCH_PATH.search(name):
            return []  # reached the user's code first: the guard was not made inside a layer
        frame = frame.f_back
    return []


def needs_guard_sites(message: str, frames: list[Any]) -> bool:
    """A constraint violation, or torch's Dim solver giving up on a guard (sympy's
    NotImplementedError out of `DimConstraints.solve`): neither names the line, the guards do."""
    if "Constraints violated" in message:
        return True
    paths = [(str(f.get("path", "")), f.get("name")) for f in frames]
    solver = any(name == "solve" and path.endswith("symbolic_shapes.py") for path, name in paths)
    return solver and any("/sympy/" in path for path, _ in paths)


def _source_name(source: Any) -> str:
    name = getattr(source, "name", "")
    return str(name() if callable(name) else name)  # a method in older torch, a property in newer


def _guard_kind(expr: Any) -> Literal["eq-const", "eq-sym", "range", "ne", "other"]:
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
