"""A library wrapper's own `.export(...)` (transformers' `TorchExportableModuleForDecoderOnlyLM`), and
the library's `convert_and_export_with_cache(model, example_input_ids, example_cache_position)`.

The method calls `torch.export.export(self.model, args=(), kwargs={input_ids | inputs_embeds,
cache_position}, dynamic_shapes=..., strict=strict if given else True)`, with `cache_position`
defaulting to `arange` of the sequence (integrations/executorch.py of transformers 5.25.0 and 4.57.3); the
job exports that same call, so the prefill and its decode step are checked as the wrapper makes them.
The function wraps the model in `TorchExportableModuleWithStaticCache(model)` and exports it with
`input_ids` (default `[[1]]`) and `cache_position` (default `[0]`), strict unless told otherwise.
"""

from __future__ import annotations

from typing import Any

import torch

from ..core.attempt import Attempt

TOKENS = ("input_ids", "inputs_embeds")


def wrapper_attempt(wrapper: Any, keywords: dict[str, Any]) -> Attempt:
    """The export the wrapper's method makes from `keywords` (the call's, evaluated)."""
    inner = getattr(wrapper, "model", None)
    if not isinstance(inner, torch.nn.Module):
        raise TypeError(f"{type(wrapper).__name__}.export: no `.model` module to export")
    kwargs: dict[str, Any] = {}
    for name in TOKENS:
        tokens = keywords.get(name)
        if isinstance(tokens, torch.Tensor):
            kwargs[name] = tokens
            position = keywords.get("cache_position")
            if position is None:  # as the method does: one position per token
                length = tokens.shape[-1] if name == "input_ids" else tokens.shape[1]
                position = torch.arange(length, dtype=torch.long, device=tokens.device)
            kwargs["cache_position"] = position
            break
    strict = keywords.get("strict")
    return Attempt(
        inner, (), kwargs, keywords.get("dynamic_shapes"), True if strict is None else bool(strict)
    )


def is_library_function(function: Any) -> bool:
    return (
        getattr(function, "__name__", "") == "convert_and_export_with_cache"
        and getattr(function, "__module__", "") == "transformers.integrations.executorch"
    )


def function_attempt(function: Any, args: list[Any], keywords: dict[str, Any]) -> Attempt:
    """The export `convert_and_export_with_cache(...)` makes from its arguments (evaluated)."""
    names = ("model", "example_input_ids", "example_cache_position", "dynamic_shapes", "strict")
    given = {**dict(zip(names, args, strict=False)), **keywords}
    model = given["model"]
    wrapper = function.__globals__["TorchExportableModuleWithStaticCache"](model)
    ids = given.get("example_input_ids")
    position = given.get("example_cache_position")
    device = getattr(model, "device", None)
    kwargs = {
        "input_ids": ids if ids is not None else torch.tensor([[1]], dtype=torch.long, device=device),
        "cache_position": position
        if position is not None
        else torch.tensor([0], dtype=torch.long, device=device),
    }
    strict = given.get("strict")
    return Attempt(wrapper, (), kwargs, given.get("dynamic_shapes"), True if strict is None else bool(strict))
