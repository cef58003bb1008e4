"""Recompiles from what the script switches between calls (issue 45 point 1): `model.eval()` /
`model.train()`, a dtype (`model.double()`, `model(x.half())`), autocast and grad mode off
(`torch.no_grad()`). The switches are made in the script's order and the compiled module called
with the first call's inputs where the script calls it in a state it has not called before,
under that call's contexts (discovery/compile_switches.py); a call that fails one of dynamo's
guards recompiles.

Where: a mode's guard (`self._modules['bn'].training == True`) carries the user's stack where the
flag was read ("User stack trace", torch 2.10+), the innermost workspace frame of which is the
line; a dtype's (`tensor 'x' dtype mismatch`), autocast's and grad mode's (`GLOBAL_STATE changed:
grad_mode`) have none, so the script's line that made the switch at that call is the frame.
Torch checks global state first: `.eval()` then a call under `no_grad()` fails on grad mode.
No remedy is tried: each mode, dtype or context is one more compiled version kept beside the
first (switching back costs nothing), which no torch setting removes.
The module's mode and values are restored afterwards: a proof after this pass compiles the
module as the script's first call saw it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from ..wire.compile_records import Recompile
from ..wire.protocol import CompileSwitch
from ..wire.records import Frame
from .state_recompiles import _frames, _guard_text

_NAMES = {"mode": ".training ==", "dtype": "dtype mismatch", "autocast": "autocast", "grad": "grad_mode"}


def switch_recompiles(
    compiled: Any, attempt: Any, switches: list[CompileSwitch], path: str
) -> list[Recompile]:
    """One record per call that recompiled, in the script's order, on the switch made at that call
    (the last of its group: discovery/compile_switches.py)."""
    from torch._dynamo.utils import guard_failures

    from .recompiles import recompile_limit

    found: list[Recompile] = []
    args, kwargs = attempt.args, dict(attempt.kwargs or {})
    group: list[CompileSwitch] = []
    with _restored(attempt.module):
        for switch in switches:
            if switch["kind"] == "mode":
                attempt.module.train(switch["value"] == "train")
            elif switch["kind"] == "dtype":
                args, kwargs = _cast_all(attempt.module, (args, kwargs), switch["value"])
            group.append(switch)
            if not switch["call"]:
                continue
            guard_failures.clear()
            with ExitStack() as stack:
                for context in group:
                    if context["kind"] in _CONTEXTS:
                        stack.enter_context(_CONTEXTS[context["kind"]](context["value"]))
                compiled(*args, **kwargs)
            made, group = group, []
            failed = [str(r) for v in guard_failures.values() for r in v]
            if not failed:
                continue  # torch had a compiled version for this state already: nothing to say
            # each kept version's failure is listed: the one naming what was switched, if any
            named = [
                r for k in (switch["kind"], *(s["kind"] for s in made)) for r in failed if _NAMES[k] in r
            ]
            reason = (named or failed)[0]
            line: Frame = {"path": path, "line": switch["line"], "name": "<module>"}
            frames = _frames(reason) or [line]
            found.append(
                {
                    "reason": _guard_text(reason),
                    "dim": switch["kind"],
                    "sizes": [],
                    "frames": frames,
                    "limit": recompile_limit(),
                    "switch": _said(switch),
                }
            )
            if len(made) > 1:  # switched before the same call: one compile covers them
                found[-1]["also"] = [f"{s['kind']}:{_said(s)}" for s in made[:-1]]
    return found


def _said(switch: CompileSwitch) -> str:
    return f"{switch['value'] or 'default'}@{switch['line']}"


@contextmanager
def _restored(module: Any) -> Iterator[None]:
    """The module's modes, and its parameters and buffers as they were (a dtype switch converts
    them: `.to()` replaces a parameter's data and a buffer's object)."""
    subs = list(module.modules()) if hasattr(module, "modules") else []
    modes = [(m, m.training) for m in subs]
    kept = [
        (table, name, tensor, tensor.data.clone())
        for m in subs
        for table in (m._parameters, m._buffers)
        for name, tensor in table.items()
        if tensor is not None
    ]
    try:
        yield
    finally:
        for table, name, tensor, data in kept:
            tensor.data = data
            table[name] = tensor
        for sub, training in modes:
            sub.training = training


def _cast_all(module: Any, inputs: Any, dtype_name: str) -> Any:
    """The module and the floating-point tensors of the inputs in `dtype_name`, as the script does."""
    import torch

    dtype = getattr(torch, dtype_name)
    if isinstance(module, torch.nn.Module):
        module.to(dtype)

    def cast(value: Any) -> Any:
        if isinstance(value, torch.Tensor):
            return value.to(dtype) if value.is_floating_point() else value
        if isinstance(value, (tuple, list)):
            return type(value)(cast(v) for v in value)
        if isinstance(value, dict):
            return {k: cast(v) for k, v in value.items()}
        return value

    args, kwargs = inputs
    return cast(tuple(args)), cast(kwargs)


def _autocast(dtype_name: str) -> Any:
    """CPU autocast (this machine's device; a CUDA autocast's guard is the same global state)."""
    import torch

    return torch.autocast("cpu", dtype=getattr(torch, dtype_name or "bfloat16"))


def _grad_off(how: str) -> Any:
    """Grad mode off as the script turns it off (the first call's inputs were made outside it: an
    inference tensor's own guard is not tried)."""
    import torch

    if how == "inference_mode()":
        return torch.inference_mode()
    return torch.no_grad()  # `torch.set_grad_enabled(False)` sets the same flag


_CONTEXTS = {"autocast": _autocast, "grad": _grad_off}
