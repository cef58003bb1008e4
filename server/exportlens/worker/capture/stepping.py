"""The export again, past the failures already known, stopping where the plain export would stop.

In the child, for the search for more failures (allfailures.py). Real-tensor propagation (what
`draft_export` does) can step past a data-dependent guard or a missing fake kernel with the
example's real value. `stepping_over(known)` lets it do so only at the `known` failures' sites (the
first, then each one found: fixed, as far as the rest of the trace can tell); at any other a hook
raises what the plain export raises there (`GuardOnDataDependentSymNode`, with the failure's record
attached as `exportlens_record`), so torch handles it as it would (a caller that catches it carries
on) and the export stops where a user who fixed the earlier failures would see it stop. Guards that
only real-tensor propagation makes (its own check of a fake output against the real one, after a
boolean mask or `nonzero()`) and asserts the plain export turns into runtime checks are stepped past
silently: they are no failures. A fake kernel that disagrees with its real one stops nothing
either. torch's structured trace stays off (most of draft_export's cost, and a trace file under
/tmp): the hooks read the user's frames straight off the live stack.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import sysconfig
import warnings
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

from ..wire.records import FailureRecord, Frame
from ..wire.wordings import GUARD_MESSAGE, GUARD_ON_DATA
from .failure import MESSAGE_LIMIT

Site = tuple[str, int]  # (path, line) of the innermost user or library frame of a failure
_RUNTIME_ERROR_MRO = ["RuntimeError", "Exception", "BaseException", "object"]
_NOT_USER = tuple(
    os.path.join(os.path.realpath(p), "")
    for p in {
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),  # exportlens itself
        *(sysconfig.get_paths().get(k, "") for k in ("stdlib", "platstdlib", "purelib", "platlib")),
    }
    if p
)
# Where real-tensor propagation checks its fake outputs against the real ones: guards made there
# (a storage offset after a boolean mask) exist only because it is on.
REAL_VALUE_CHECKS = frozenset(
    {
        "_check_fake_real_tensors",
        "_check_fake_real_vals",
        "_maybe_infer_fake",
        "_maybe_infer_fake_kernel_from_pytree_out",
        "inferred_fake_kernel_from_real_out",
    }
)


class MissingFakeKernel(RuntimeError):
    """What the plain export raises at a custom op without a fake kernel (its record attached)."""


@contextlib.contextmanager
def real_values() -> Iterator[None]:
    """Real-tensor propagation on (as draft_export), its warnings off, parameters' values right."""
    import torch._functorch.config as config

    with (
        config.patch(
            fake_tensor_propagate_real_tensors=True, generate_fake_kernels_from_real_mismatches=True
        ),
        warnings.catch_warnings(),
        _parameters_copied(),
    ):
        warnings.simplefilter("ignore")
        yield


@contextlib.contextmanager
def _parameters_copied() -> Iterator[None]:
    """torch (2.13) gives a parameter's fake tensor an uninitialised real tensor: its copy skips
    anything not exactly a `torch.Tensor`, an `nn.Parameter` too. The real values then read garbage
    (a NaN one run in two: `assert not torch.isnan(h).any()` fails on a stepped-over line). Copy a
    parameter's data like a tensor's."""
    import torch
    import torch._subclasses.meta_utils as meta_utils

    original = getattr(meta_utils, "_safe_copy", None)
    if original is None:
        yield
        return

    def copy(dst: Any, src: Any) -> None:
        original(dst, src.data if type(src) is torch.nn.Parameter else src)

    meta_utils._safe_copy = copy
    try:
        yield
    finally:
        meta_utils._safe_copy = original


@contextlib.contextmanager
def stepping_over(known: set[Site]) -> Iterator[None]:
    """Real values past the failures at `known` sites; at any other, the plain export's error."""
    import torch._subclasses.fake_tensor as fake_tensor
    import torch.fx.experimental.symbolic_shapes as symbolic_shapes

    shape_env = symbolic_shapes.ShapeEnv

    def on_real_value(self: Any, orig_expr: Any, unsound_result: Any) -> None:
        frame = sys._getframe(1)
        if _checking_real_values(frame):
            return
        frames = live_frames(frame)
        if site_of(frames) in known or _becomes_runtime_assert(self):
            return
        record: FailureRecord = {
            "stage": "export",
            "exc_type": GUARD_ON_DATA,
            "exc_mro": [GUARD_ON_DATA, *_RUNTIME_ERROR_MRO],
            "message": f"{GUARD_MESSAGE} {orig_expr}"[:MESSAGE_LIMIT],
            "draft_failure_type": "DATA_DEPENDENT_ERROR",
            "cond": str(orig_expr),
            # torch's value from real tensors; unreliable for float->int (TruncToInt) expressions
            "example_value": repr(unsound_result)[:200],
            "frames": frames,
            "found_by": "real-tensor-propagation",
        }
        error = symbolic_shapes.GuardOnDataDependentSymNode(orig_expr, record["message"])
        error.exportlens_record = record  # type: ignore[attr-defined]
        raise error

    def on_dtrace(name: str, metadata_fn: Callable[[], Any] = dict, **_: Any) -> None:
        if name != "missing_fake_kernel":  # a mismatched fake kernel stops no export
            return
        frames = live_frames(sys._getframe(1))
        if site_of(frames) in known:
            return
        metadata = metadata_fn()
        op = metadata.get("op", "?") if isinstance(metadata, dict) else "?"
        message = f"Operator {op} has no fake impl registered; use torch.library.register_fake"
        error = MissingFakeKernel(message)
        error.exportlens_record = {  # type: ignore[attr-defined]
            "stage": "export",
            "exc_type": "RuntimeError",
            "exc_mro": _RUNTIME_ERROR_MRO,
            "message": message[:MESSAGE_LIMIT],
            "draft_failure_type": "MISSING_FAKE_KERNEL",
            "op": op,
            "frames": frames,
            "found_by": "real-tensor-propagation",
        }
        raise error

    saved = (
        shape_env.__dict__.get("_log_real_tensor_propagation"),
        getattr(fake_tensor, "dtrace_structured", None),
    )
    shape_env._log_real_tensor_propagation = on_real_value  # type: ignore[method-assign]
    setattr(fake_tensor, "dtrace_structured", on_dtrace)  # noqa: B010 - torch does not re-export it
    try:
        with real_values():
            yield
    finally:
        if saved[0] is not None:
            shape_env._log_real_tensor_propagation = saved[0]  # type: ignore[method-assign]
        if saved[1] is not None:
            setattr(fake_tensor, "dtrace_structured", saved[1])  # noqa: B010


def _checking_real_values(frame: FrameType | None) -> bool:
    """Whether real-tensor propagation's own check of a fake output against the real one is asking."""
    while frame is not None:
        if frame.f_code.co_name in REAL_VALUE_CHECKS:
            return True
        frame = frame.f_back
    return False


def _becomes_runtime_assert(shape_env: Any) -> bool:
    """The plain export turns a guard in a Python `assert` into a runtime check (non-strict's
    `trace_asserts`): no failure there."""
    try:
        return bool(getattr(shape_env, "trace_asserts", False) and shape_env._is_python_assert())
    except Exception:  # noqa: BLE001 - torch's bytecode reading: when it cannot say, it is a guard
        return False


def live_frames(frame: FrameType | None) -> list[Frame]:
    """The live stack's user frames, outermost first, with CPython's (byte) columns; then the
    library frames inside the innermost one (`torch.distributions` validating, a library's
    check) that led to the event, innermost last: where the guard was really made."""
    frames: list[Frame] = []
    inside: list[Frame] = []  # library frames deeper than any user frame seen so far
    while frame is not None:
        code = frame.f_code
        if not frames and _is_library(code.co_filename):
            inside.append({"path": code.co_filename, "line": frame.f_lineno, "name": code.co_name})
        if _is_user(code.co_filename):
            line, end_line, col, end_col = frame.f_lineno, None, None, None
            if frame.f_lasti >= 0 and hasattr(code, "co_positions"):
                positions = list(code.co_positions())
                index = frame.f_lasti // 2
                if index < len(positions):
                    line, end_line, col, end_col = positions[index]
                    line = line or frame.f_lineno
            frames.append(
                {
                    "path": code.co_filename,
                    "line": line,
                    "end_line": end_line,
                    "col": col,
                    "end_col": end_col,
                    "name": code.co_name,
                }
            )
        frame = frame.f_back
    return frames[::-1] + inside[:LIBRARY_FRAMES][::-1]


LIBRARY_FRAMES = 4
# torch's public layers a user calls (not its tracing machinery), and any installed package.
_LIBRARY_PARTS = ("/torch/nn/", "/torch/distributions/", "/site-packages/", "/dist-packages/")
_TORCH_MACHINERY = ("/torch/_", "/torch/fx/", "/torch/export/", "/torch/utils/", "/torch/overrides")


@functools.lru_cache(maxsize=4096)
def _is_library(filename: str) -> bool:
    if not any(part in filename for part in _LIBRARY_PARTS) or "/exportlens/" in filename:
        return False
    torch_at = filename.rfind("/torch/")
    return torch_at < 0 or not filename[torch_at:].startswith(_TORCH_MACHINERY)


@functools.lru_cache(maxsize=4096)
def _is_user(filename: str) -> bool:
    # Any installed package is not the user's, the interpreter's own site or another one (torch
    # from a `--system-site-packages` base, a user site, a `.pth` line): counted as the user's,
    # torch's frames made the site of a failure one inside torch, never matched on the retrace.
    if filename.startswith("<") or any(part in filename for part in _INSTALLED):
        return False
    return not os.path.realpath(filename).startswith(_NOT_USER)


_INSTALLED = ("/site-packages/", "/dist-packages/")


def site_of(frames: list[Frame]) -> Site | None:
    """The innermost frame of user or library code (not torch's machinery): where a failure is."""
    for frame in reversed(frames):
        path = str(frame.get("path", "<"))
        if frame.get("line") and (_is_user(path) or _is_library(path)):
            return path, int(frame["line"] or 0)
    return None
