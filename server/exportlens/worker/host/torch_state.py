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
from collections.abc import Callable, Iterator
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


def _probes() -> dict[str, Callable[[], Any]]:
    """What to read, by name; each read that this torch does not have is left out."""
    import torch

    def counted() -> Any:
        from torch._dynamo.utils import counters

        return copy.deepcopy({k: dict(v) for k, v in counters.items() if v})

    def pytree_nodes() -> Any:
        import torch.utils._pytree as pytree

        return set(pytree.SUPPORTED_NODES)

    def tracing() -> Any:
        from torch._guards import TracingContext

        return TracingContext.try_get() is not None

    probes: dict[str, Callable[[], Any]] = {
        "dynamo.counters": counted,
        "pytree.nodes": pytree_nodes,
        "tracing_context": tracing,
        "grad_enabled": torch.is_grad_enabled,
        "default_dtype": torch.get_default_dtype,
        "default_device": lambda: str(torch.get_default_device()),  # torch 2.3+
        "torch_function_modes": lambda: torch._C._len_torch_function_stack(),
        "dispatch_modes": lambda: torch._C._len_torch_dispatch_stack(),
        "threads": torch.get_num_threads,
    }
    for name, config in _configs().items():
        if not hasattr(config, "get_config_copy"):
            continue
        probes[name] = config.get_config_copy
    return probes


def snapshot() -> dict[str, Any]:
    state: dict[str, Any] = {name: dict(hooks) for name, hooks in _hook_registries().items()}
    for name, probe in _probes().items():
        with contextlib.suppress(Exception):  # older torch: not there, nothing to compare
            state[name] = probe()
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
                with contextlib.suppress(Exception):  # an entry torch will not let us set back
                    setattr(config, key, value)
    if "dynamo.counters" in before:
        counters.clear()
        for key, values in before["dynamo.counters"].items():
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
