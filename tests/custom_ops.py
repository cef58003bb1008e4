"""The one custom op the tests define in a user's file: a real `torch.library` op, its fake
kernel, and no ONNX translation or decomposition of its own. Each test names its own namespace:
ops live in torch's global registry, and one process may import several of these files."""

from __future__ import annotations


def scale_op(namespace: str) -> str:
    """The file's first lines: `scale(x) = x * 2` as `{namespace}::scale` (unindented)."""
    return f'''import torch


@torch.library.custom_op("{namespace}::scale", mutates_args=())
def scale(x: torch.Tensor) -> torch.Tensor:
    return x * 2


@scale.register_fake
def _(x):
    return torch.empty_like(x)
'''
