"""The decode step of a language model exported with a cache (issue 44): one token, next position.

An export whose inputs carry `cache_position` (transformers' executorch wrappers, or the user's own
wrapper around a static cache) is the prefill: generation then calls the same program with one
token at cache position L, the prompt's length, as `TorchExportableModuleForDecoderOnlyLM.generate`
feeds it. After the prefill exports, its program is called that way once, on real values: a
program that only takes the prompt's length (a static export), or a cache with no room for the next
token, refuses there. A refusal is run again by the module itself for its frames (the graph's
generated code has none of the model's lines), which also tells whether the model fails the step;
the buffers and constants both runs write (the cache) are put back. Nothing is said when the step
runs or cannot run here (no values, out of budget).
"""

from __future__ import annotations

import inspect
import traceback
from collections.abc import Callable
from typing import Any

import torch

from ..capture.failure import exception_text, frame_records
from ..core.attempt import Attempt
from ..core.budget import Budget, OutOfBudget
from ..wire.records import DecodeStep

TOKENS = ("input_ids", "inputs_embeds")


def decode_step(
    program: Any, attempt: Attempt, budget: Budget, starting: Callable[[], None]
) -> DecodeStep | None:
    """Best effort: a step that cannot be built or run here says nothing. `starting`: before it runs."""
    try:
        step = one_token(attempt)
    except Exception:  # noqa: BLE001 - an odd signature is not the user's error
        return None
    if step is None:
        return None
    args, kwargs, position, tokens, _ = step
    starting()
    saved = _mutable_state(program, attempt.module)
    try:
        refused = _run(program.module(), args, kwargs, budget, 0.4)
        if refused is None or isinstance(refused, OutOfBudget):
            return None
        eager = _run(attempt.module, args, kwargs, budget, 0.5)  # where the model itself fails it
    finally:
        with torch.no_grad():  # both runs wrote the cache: later passes see the prefill's state
            for tensor, value in saved:
                tensor.copy_(value)
    failed = eager is not None and not isinstance(eager, OutOfBudget)
    record: DecodeStep = {
        "position": position,
        "tokens": tokens,
        "exc_type": type(refused).__name__,
        "message": exception_text(refused)[:2000],
        "eager": "runs" if eager is None else "not run" if isinstance(eager, OutOfBudget) else "fails",
        "frames": frame_records(traceback.extract_tb(eager.__traceback__)) if failed and eager else [],
    }
    if failed and eager is not None:
        record["eager_message"] = f"{type(eager).__name__}: {exception_text(eager)}"[:2000]
    return record


def prefill_tokens(attempt: Attempt | None) -> int | None:
    """How many tokens the export's own inputs feed, when they are a prefill with a cache."""
    try:
        step = one_token(attempt) if attempt is not None else None
    except Exception:  # noqa: BLE001 - an odd signature is not the user's error
        return None
    return None if step is None else step[4]


def one_token(attempt: Attempt) -> tuple[tuple[Any, ...], dict[str, Any], int, str, int] | None:
    """The prefill's inputs cut to their last token at the next cache position, that position, the
    tokens' argument and the prefill's length; None without a cache."""
    if attempt.meta or not isinstance(attempt.module, torch.nn.Module):
        return None
    names = [
        p.name
        for p in inspect.signature(attempt.module.forward).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    args, kwargs = list(attempt.args), dict(attempt.kwargs)

    def where(name: str) -> tuple[Any, Any] | None:
        if name in kwargs:
            return kwargs, name
        index = names.index(name) if name in names else len(args)
        return (args, index) if index < len(args) else None

    found = where("cache_position")
    position = found[0][found[1]] if found else None
    if found is None or not isinstance(position, torch.Tensor) or not _integer_vector(position):
        return None
    length, following = position.shape[0], int(position[-1]) + 1
    changed = None
    for name in (*TOKENS, "position_ids"):
        at = where(name)
        value = at[0][at[1]] if at else None
        if at and isinstance(value, torch.Tensor) and value.dim() >= 2 and value.shape[1] == length:
            last = value[:, -1:]
            at[0][at[1]] = torch.full_like(last, following) if name == "position_ids" else last.clone()
            changed = changed or (name if name in TOKENS else None)
    if changed is None:
        return None
    container, key = found
    container[key] = torch.tensor([following], dtype=position.dtype, device=position.device)
    return tuple(args), kwargs, following, changed, length


def _integer_vector(value: Any) -> bool:
    return (
        isinstance(value, torch.Tensor)
        and value.dim() == 1
        and value.numel() > 0
        and not value.is_floating_point()
        and not value.is_meta
    )


def _mutable_state(program: Any, module: torch.nn.Module) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """The program's and the module's buffers and tensor constants (a static cache is among them), copied."""
    names = set(program.graph_signature.buffers)
    tensors = [t for n, t in program.state_dict.items() if n in names]
    tensors += [t for t in program.constants.values() if isinstance(t, torch.Tensor)]
    tensors += list(module.buffers())
    unique = {id(t): t for t in tensors}.values()
    return [(t, t.detach().clone()) for t in unique]


def _run(module: Any, args: Any, kwargs: Any, budget: Budget, share: float) -> BaseException | None:
    """The step run once: what it raised (OutOfBudget when it ran out of its share), None if it ran."""
    try:
        with torch.no_grad(), budget.bounded(share):
            module(*args, **kwargs)
    except (Exception, OutOfBudget) as exc:  # noqa: BLE001 - the step's refusal is the finding
        return exc
    return None
