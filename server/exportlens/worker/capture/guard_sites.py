"""Which user line added each shape guard: the export again, with a hook on torch's ShapeEnv.

For a constraint violation torch's non-strict message has no location at all (strict's only
sometimes), so `guard_sites` re-runs the same export once and records, for each guard, the user
frames (and the torch.nn layer, if any) on the stack when it was made.  In the child, with torch.
"""

from __future__ import annotations

import os
import re
import sys
import traceback
import types
from typing import Any, Literal

from ..wire.records import Frame, GuardSite
from .failure import exception_text, frame_records

GUARD_SITES_LIMIT = 400
LIBRARY_FRAMES_PER_SITE = 4  # innermost library frames kept per guard: real models nest deeply
_TORCH_PATH = re.compile(r"/(torch|functorch|torchgen)/")


def library_dirs() -> tuple[str, ...]:
    import torch

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the worker package
    dirs = {os.path.dirname(torch.__file__), os.path.dirname(here), os.path.dirname(os.__file__)}
    return tuple(d + os.sep for d in dirs)


def user_frames(frame: types.FrameType | None, skip: tuple[str, ...]) -> list[Frame]:
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


def trim_library(frames: list[Frame]) -> list[Frame]:
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
    return frame_records(stack)


def guard_sites(attempt: Any, strict: bool) -> list[GuardSite]:
    """Re-run the export, recording each shape guard with the user frames that added it.

    Only called after a constraint violation; costs about one more export of the module.
    The re-run is non-strict even for a strict failure when that shows the same violation:
    the same code adds the same guards, and on a real model a strict export costs 2-3x a
    non-strict one (vit-pytorch SimpleViT: 67 s vs 22 s here).
    """
    if strict:
        sites, violated = record_sites(attempt, strict=False)
        if violated and sites:
            return sites
    return record_sites(attempt, strict)[0]


def record_sites(attempt: Any, strict: bool) -> tuple[list[GuardSite], bool]:
    """The guard sites of one export, and whether it ended in a constraint violation."""
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    skip = library_dirs()
    sites: list[GuardSite] = []
    seen: set[str] = set()  # a real model repeats each guard once per layer: the first one is the origin
    original = ShapeEnv._maybe_guard_rel

    def record(self: Any, expr: Any) -> Any:
        text = str(expr)
        if len(sites) < GUARD_SITES_LIMIT and text not in seen:
            seen.add(text)
            frames = _dynamo_user_frames() if strict else user_frames(sys._getframe(1), skip)
            frames = [f for f in frames if not str(f["path"]).startswith(skip)]
            frames = trim_library(frames)
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
        attempt.export(strict)
    except BaseException as exc:  # noqa: BLE001 - the failure is known; only the guards matter
        violated = needs_guard_sites(
            exception_text(exc), frame_records(traceback.extract_tb(exc.__traceback__))
        )
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
