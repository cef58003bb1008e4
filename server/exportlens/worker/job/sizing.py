"""Large models without allocating their weights.

A dry run builds the module and its inputs under `torch.device("meta")`
(no memory, no init kernels) to measure parameters and buffers.  Above the
limit, that meta build *is* the attempt: exporting it traces the same graph,
guards and failures as real weights would, in a fraction of the time and
memory.  Below it, the module is built again for real.  Code that needs real
data (loading a checkpoint, `.item()` while building) fails the dry run and
simply gets the real build.

The dry run is devices.py's build, on the meta device: the same redirect that gives tensors
the user puts on an accelerator a fake tensor on that device (`.cuda()` under the dry run is
fake `cuda:0`, allocating nothing), one way to build a model without allocating it.
"""

from __future__ import annotations

import ast
import contextlib
import random
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import torch

from ..core.attempt import Attempt
from ..wire.protocol import InputsSpec
from .devices import Placement, building
from .inputs import build


def build_sized(
    spec: InputsSpec,
    user_module: ModuleType,
    path: str,
    tree: ast.Module,
    limit_mb: float | None,
    placement: Placement | None = None,
) -> Attempt:
    """Call it inside `devices.building(placement)` (the child does), so the real build is placed too."""
    if not limit_mb:
        return build(spec, user_module, path, tree)
    try:
        with building(placement or Placement("real"), meta=True), same_draws():
            probe = build(spec, user_module, path, tree)
        size = weight_bytes(probe.module)
    except Exception:  # noqa: BLE001 - the dry run is an estimate; the real build decides
        return build(spec, user_module, path, tree)
    if size > limit_mb * 1024 * 1024:
        probe.meta, probe.weight_bytes = True, size
        return probe
    attempt = build(spec, user_module, path, tree)
    attempt.weight_bytes = size
    return attempt


@contextlib.contextmanager
def same_draws() -> Iterator[None]:
    """The random generators as they were: the real build after the dry run draws what the user's
    run draws (`random.random()` in `__init__`, a CPU tensor made outside the meta device)."""
    torch_state, python_state = torch.random.get_rng_state(), random.getstate()
    numpy = sys.modules.get("numpy")
    numpy_state = numpy.random.get_state() if numpy is not None else None
    try:
        yield
    finally:
        torch.random.set_rng_state(torch_state)
        random.setstate(python_state)
        if numpy is not None:
            numpy.random.set_state(numpy_state)


def weight_bytes(module: Any) -> int:
    if not isinstance(module, torch.nn.Module):
        return 0
    tensors = [*module.parameters(), *module.buffers()]
    return sum(t.numel() * t.element_size() for t in tensors)


def meta_weights(module: Any) -> bool:
    """Some parameter or buffer of `module` is on the meta device (the code put it there): no values."""
    if not isinstance(module, torch.nn.Module):
        return False
    return any(t.is_meta for t in (*module.parameters(), *module.buffers()))
