"""A modeling_*.py in the style of real model libraries: relative imports, TYPE_CHECKING,
bases imported from elsewhere, config-only constructors, heads built on a shared model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch
from torch import nn

from .base import GradientCheckpointingLayer, ModelOutput, PreTrainedModel
from .configuration_tiny import TinyConfig

if TYPE_CHECKING:
    from collections.abc import Callable


@dataclass
class TinyOutput(ModelOutput):
    logits: torch.Tensor | None = None


class TinyMLP(nn.Module):
    def __init__(self, config: TinyConfig) -> None:
        super().__init__()
        self.up = nn.Linear(config.hidden_size, 2 * config.hidden_size)
        self.down = nn.Linear(2 * config.hidden_size, config.hidden_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(torch.relu(self.up(x)))


class TinyLayer(GradientCheckpointingLayer):
    def __init__(self, config: TinyConfig) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(config.hidden_size)
        self.mlp = TinyMLP(config)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.mlp(self.norm(x))


class TinyPreTrainedModel(PreTrainedModel):
    config_class = TinyConfig


class TinyModel(TinyPreTrainedModel):
    def __init__(self, config: TinyConfig) -> None:
        super().__init__(config)
        self.embed = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(TinyLayer(config) for _ in range(config.num_layers))
        self.post_init()

    def forward(
        self, input_ids: torch.Tensor, act: Callable[..., torch.Tensor] | None = None
    ) -> torch.Tensor:
        hidden = self.embed(input_ids)
        for layer in self.layers:
            hidden = layer(hidden)
        return hidden


class TinyForCausalLM(TinyPreTrainedModel):
    def __init__(self, config: TinyConfig) -> None:
        super().__init__(config)
        self.model = TinyModel(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.lm_head(self.model(input_ids))


class TinyForSequenceClassification(TinyPreTrainedModel):
    def __init__(self, config: TinyConfig) -> None:
        super().__init__(config)
        self.model = TinyModel(config)
        self.score = nn.Linear(config.hidden_size, 2)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.score(self.model(input_ids)[:, -1])


if __name__ == "__main__":
    config = TinyConfig()
    model = TinyForCausalLM(config).eval()
    ids = torch.randint(0, config.vocab_size, (2, 8))
    torch.export.export(model, (ids,), dynamic_shapes=({0: torch.export.Dim("batch")},))
