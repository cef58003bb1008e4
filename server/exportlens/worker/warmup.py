"""Pay torch's first-use costs once, in the worker, before any job forks.

Every job is a child forked from the worker, so whatever the worker has
already initialised (dynamo, fake tensors, symbolic shapes, the decompositions
and kernels of common layers, the error paths) is warm in every child.  Only
tiny tensors and one thread: a forked child hangs if the parent ever started
OpenMP's thread pool.
"""

from __future__ import annotations

import contextlib
from typing import Any

from .torch_state import leaves_no_trace


def warm_up() -> None:
    import torch
    from torch import nn
    from torch.export import Dim

    class Tiny(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(10, 8)
            self.norm = nn.LayerNorm(8)
            self.attn = nn.MultiheadAttention(8, 2, batch_first=True)
            self.ff = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Dropout(0.1), nn.Linear(16, 8))
            self.conv = nn.Conv1d(8, 8, 3, padding=1)
            self.conv2d = nn.Conv2d(1, 2, 3, padding=1)
            self.bn = nn.BatchNorm2d(2)

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            x = self.norm(self.embed(tokens))
            x = x + self.attn(x, x, x, need_weights=False)[0]
            x = x + self.ff(x)
            x = self.conv(x.transpose(1, 2)).transpose(1, 2)
            q = x.view(x.shape[0], x.shape[1], 2, 4).permute(0, 2, 1, 3)
            x = torch.nn.functional.scaled_dot_product_attention(q, q, q).reshape(x.shape)
            image = self.bn(self.conv2d(x[:, None])).relu()
            return torch.cat([x.softmax(-1), image.mean(1)], dim=-1).sum(-1)

    class Branchy(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            if x.sum() > 0:  # the data-dependent error path, warm too
                return x
            return -x

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        # Every job inherits what the warm-up leaves in torch: it must leave nothing (torch 2.10's
        # failed non-strict export keeps a global hook that refuses later strict exports).
        with leaves_no_trace():
            tokens = torch.randint(0, 10, (2, 4))
            batch = Dim("batch", min=2, max=64)
            for strict in (False, True):
                export(Tiny().eval(), (tokens,), strict=strict, dynamic_shapes={"tokens": {0: batch}})
                with contextlib.suppress(Exception):
                    export(Branchy(), (torch.ones(2),), strict=strict)
    finally:
        torch.set_num_threads(threads)


def export(module: Any, args: tuple[Any, ...], **kwargs: Any) -> Any:
    import torch

    return torch.export.export(module, args, **kwargs)


def prepare_for_forking() -> None:
    """Make each fork cheap: children inherit what is imported and touch little memory."""
    import gc

    from . import allfailures, child, failure, inputs, loader, sizing, summary  # noqa: F401

    gc.collect()
    # Frozen objects are never scanned by the collector, so a child's garbage
    # collections do not write to (and copy) every page of the inherited heap.
    gc.freeze()


def torch_origin() -> str | None:
    """The file `import torch` loads in this interpreter (None: there is none)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return None
    return spec.origin if spec is not None else None
