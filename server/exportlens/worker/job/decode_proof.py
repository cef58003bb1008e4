"""A cache-keeping fix's proof past the prefill (issue 44, item 2; fixes/cache_wrapper.py): the
exported program's prefill and first decode step give the logits eager generation gives.

Eager generation is the wrapped model's own `generate` (greedy, two new tokens, raw logits), run on
the example ids; the program is called on the same ids, then on the token generation chose at the
next cache position, as decode_step.py's `one_token` builds it (the wrapper's `generate` feeds it
so). A program that exports but forgets the cache between calls differs on the second step.
"""

from __future__ import annotations

from typing import Any

import torch

from ..core.attempt import Attempt
from ..wire.protocol import VerifyVerdict
from .decode_step import one_token
from .same_values import same_values


def decode_matches(program: Any, attempt: Attempt, result: VerifyVerdict) -> None:
    """Set `result`'s "matches" / "reason" from the two steps (called once the prefill matched)."""
    model = _generating(attempt.module)
    step = one_token(attempt)
    ids = attempt.kwargs.get("input_ids")
    if model is None or step is None or not isinstance(ids, torch.Tensor):
        result["matches"] = False
        result["reason"] = "no decode step to compare: the export has no token ids and cache position"
        return
    args, kwargs, position, tokens, length = step
    try:
        with torch.no_grad():
            generated = model.generate(
                ids,
                attention_mask=torch.ones_like(ids),
                max_new_tokens=2,
                min_new_tokens=2,  # an end-of-sequence token would stop it before the decode step
                do_sample=False,
                output_logits=True,
                return_dict_in_generate=True,
            )
    except Exception as exc:  # noqa: BLE001 - no reference: not proven
        result["matches"] = False
        result["reason"] = f"eager generation failed: {type(exc).__name__}: {str(exc)[:200]}"
        return
    kwargs[tokens] = generated.sequences[:, length : length + 1]
    exported = program.module()
    with torch.no_grad():
        try:
            prefill = exported(*attempt.args, **attempt.kwargs)
            decoded = exported(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - the verdict is the answer
            result["matches"] = False
            result["reason"] = f"the exported program fails the decode step: {type(exc).__name__}: {exc}"[
                :300
            ]
            return
    for label, got, want in (
        ("prefill", prefill, generated.logits[0]),
        (f"decode step (position {position})", decoded, generated.logits[1]),
    ):
        if not isinstance(got, torch.Tensor) or not same_values(got[:, -1].to(want.dtype), want):
            result["matches"] = False
            result["reason"] = f"the exported program's {label} logits differ from eager generation's"
            return
    result["matches"] = True
    result["decoded"] = position


def _generating(module: Any) -> Any:
    """The model the wrapper holds (`wrapper.model.model`…) that has `generate`."""
    for _ in range(4):
        if module is None:
            return None
        if callable(getattr(module, "generate", None)) and hasattr(module, "generation_config"):
            return module
        module = getattr(module, "model", None)
    return None
