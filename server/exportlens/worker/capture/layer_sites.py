"""Where each layer that `.eval()` switches was built: the frames of `nn.Dropout(p)` / `nn.BatchNorm2d(c)`.

A model exported in training mode keeps its dropouts random and its batch-norms on batch
statistics (diagnosis/baked/graph_facts.py warns). The graph says which layer each such op
belongs to (`nn_module_stack`), and the line that calls it, which may be deep in a package's
submodule; the user acts where the layer is built, or at the export call (`.eval()`). While the
child builds the module, the `__init__` of those layer classes records the frames that built each
instance (its subclasses' own `__init__` skipped); after the export each training op of the
summary gets its layer's (`GraphOp.built`). In the child, with torch.
"""

from __future__ import annotations

import contextlib
import re
import sys
import weakref
from collections.abc import Iterator
from typing import Any

import torch

from ..wire.records import ExportSummary, Frame
from .guard_sites import library_dirs, trim_library, user_frames

_BUILT: weakref.WeakKeyDictionary[torch.nn.Module, list[Frame]] = weakref.WeakKeyDictionary()


def _layer_classes() -> list[type]:
    """The bases whose `__init__` every dropout / batch-norm / RReLU layer runs."""
    from torch.nn.modules import activation, batchnorm, dropout

    return [dropout._DropoutNd, batchnorm._NormBase, activation.RReLU]


@contextlib.contextmanager
def recording() -> Iterator[None]:
    skip = library_dirs()
    saved = [(cls, cls.__dict__["__init__"]) for cls in _layer_classes()]

    def wrap(original: Any) -> Any:
        def init(self: torch.nn.Module, *args: Any, **kwargs: Any) -> None:
            original(self, *args, **kwargs)
            frame: Any = sys._getframe(1)
            # A subclass's (or torch's own) __init__: the call that built the layer is outside.
            while (
                frame is not None
                and frame.f_code.co_name == "__init__"
                and frame.f_locals.get("self") is self
            ):
                frame = frame.f_back
            with contextlib.suppress(TypeError):
                _BUILT[self] = trim_library(user_frames(frame, skip))

        return init

    for cls, original in saved:
        cls.__init__ = wrap(original)  # type: ignore[misc]
    try:
        yield
    finally:
        for cls, original in saved:
            cls.__init__ = original  # type: ignore[misc]


def annotate(summary: ExportSummary, root: Any) -> None:
    """Each training-mode op of the summary gets the frames that built its layer, if known."""
    if not isinstance(root, torch.nn.Module):
        return
    for op in summary["facts"].get("training_ops", []):
        layer = _resolve(root, op.get("module") or "")
        if isinstance(layer, torch.nn.Module) and (frames := _BUILT.get(layer)):
            op["built"] = frames


_STEP = re.compile(r"\.?([A-Za-z_]\w*|\d+)|\[(\d+)\]|\['([^']*)'\]")


def _resolve(root: Any, fqn: str) -> Any:
    """The object `blocks.0.drop` names under `root`; strict's names too (`h[0].mlpf.__closure__[0]
    .cell_contents.dropout`: a layer held in a lambda's closure). None when a step does not resolve."""
    value, at = root, 0
    while at < len(fqn):
        step = _STEP.match(fqn, at)
        if step is None or step.end() == at:
            return None
        at = step.end()
        name, index, key = step.groups()
        try:
            if name is not None:
                value = getattr(value, name)
            else:
                value = value[int(index)] if index is not None else value[key]
        except (AttributeError, IndexError, KeyError, TypeError):
            return None
    return value
