"""One export's inputs, built (inputs.py, part_inputs.py): what every export of a job is a call of.

Its own module so that the builders of a module's inputs and of its parts' (part_inputs.py,
part_dims.py) share it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch


@dataclass
class Attempt:
    module: Any
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)
    dynamic_shapes: Any = None
    strict: bool | None = None  # None: the caller's mode decides
    # Built on the meta device (see sizing.py): shapes and graph are real, weights are not.
    meta: bool = False
    weight_bytes: int = 0

    def export(self, strict: bool, dynamic_shapes: Any = ...) -> Any:
        """`torch.export.export` of these inputs: the job's export and each re-run after it
        (the guards' lines, the search for more failures, a fix's proof) are the same call."""
        shapes = self.dynamic_shapes if dynamic_shapes is ... else dynamic_shapes
        return torch.export.export(
            self.module, self.args, self.kwargs or None, dynamic_shapes=shapes, strict=strict
        )
