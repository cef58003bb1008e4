"""Library-style base classes: modules the checked file only imports, never defines."""

from __future__ import annotations

import torch


class PreTrainedModel(torch.nn.Module):
    config_class: type | None = None

    def __init__(self, config: object) -> None:
        super().__init__()
        self.config = config

    def post_init(self) -> None:
        for module in self.modules():
            if isinstance(module, torch.nn.Linear):
                torch.nn.init.zeros_(module.bias)


class GradientCheckpointingLayer(torch.nn.Module):
    gradient_checkpointing = False

    def __call__(self, *args: object, **kwargs: object) -> object:
        return super().__call__(*args, **kwargs)


class ModelOutput(dict):  # type: ignore[type-arg]
    pass
