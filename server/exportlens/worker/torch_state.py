"""torch's process-wide state that an export may change and leave behind (in the worker, with torch).

Every job is forked from the worker, so whatever the worker's warm-up leaves in torch is in every
job.  A failed export does leave some: torch 2.10's non-strict export registers a global buffer
registration hook and removes it only on success, and that hook then makes every later strict
export that reassigns a buffer fail (a false graph break in every job).  `snapshot` reads the
state that changes behaviour (global module hooks, config values, mode stacks, grad mode, default
dtype/device, dynamo's counters, pytree node types); `restore` puts back what it can and names what
still differs.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from typing import Any

_CONFIGS = (
    "torch._dynamo.config",
    "torch._export.config",
    "torch._functorch.config",
    "torch.fx.experimental._config",
)


def _hook_registries() -> dict[str, dict[Any, Any]]:
    import torch.nn.modules.module as module

    return {
        f"nn.module.{name}": value
        for name, value in sorted(vars(module).items())
        if name.startswith("_global_") and isinstance(value, dict)
    }


def _configs() -> dict[str, Any]:
    import importlib

    found = {}
    for name in _CONFIGS:
        with contextlib.suppress(ImportError):
            found[name] = importlib.import_module(name)
    return found


def snapshot() -> dict[str, Any]:
    import torch
    import torch.utils._pytree as pytree
    from torch._dynamo.utils import counters
    from torch._guards import TracingContext

    state: dict[str, Any] = {name: dict(hooks) for name, hooks in _hook_registries().items()}
    for name, config in _configs().items():
        state[name] = config.get_config_copy()
    state["dynamo.counters"] = copy.deepcopy({k: dict(v) for k, v in counters.items() if v})
    state["pytree.nodes"] = set(pytree.SUPPORTED_NODES)
    state["grad_enabled"] = torch.is_grad_enabled()
    state["default_dtype"] = torch.get_default_dtype()
    state["default_device"] = str(torch.get_default_device())
    state["torch_function_modes"] = torch._C._len_torch_function_stack()
    state["dispatch_modes"] = torch._C._len_torch_dispatch_stack()
    state["tracing_context"] = TracingContext.try_get() is not None
    state["threads"] = torch.get_num_threads()
    return state


def differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Names of the state that differs, with what changed for dicts (`name: +key -key`)."""
    out = []
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name), after.get(name)
        if old == new:
            continue
        if isinstance(old, dict) and isinstance(new, dict):
            changed = sorted(
                str(k) for k in set(old) | set(new) if old.get(k, _MISSING) != new.get(k, _MISSING)
            )
            out.append(f"{name}: {', '.join(changed)}")
        else:
            out.append(f"{name}: {old!r} -> {new!r}")
    return out


_MISSING = object()


def restore(before: dict[str, Any]) -> list[str]:
    """Put the hook registries, configs and counters back as `before` had them; what still differs."""
    from torch._dynamo.utils import counters

    for name, hooks in _hook_registries().items():
        if name in before:
            hooks.clear()
            hooks.update(before[name])
    for name, config in _configs().items():
        for key, value in before.get(name, {}).items():
            if config.get_config_copy().get(key, _MISSING) != value:
                setattr(config, key, value)
    counters.clear()
    for key, values in before.get("dynamo.counters", {}).items():
        counters[key].update(values)
    return differences(before, snapshot())


@contextlib.contextmanager
def leaves_no_trace() -> Iterator[None]:
    """Whatever runs inside leaves torch's global state as it found it (as far as it can be put back)."""
    before = snapshot()
    try:
        yield
    finally:
        restore(before)
