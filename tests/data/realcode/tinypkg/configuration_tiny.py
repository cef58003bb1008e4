"""A dataclass config, as model libraries write them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class TinyConfig:
    vocab_size: int = 50
    hidden_size: int = 16
    num_layers: int = 2
    use_cache: bool = False
