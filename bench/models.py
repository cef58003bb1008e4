"""Source text of the benchmark's model files.

Each model file is what a user would write: it defines the model from `torch.nn`
only and, under `if __name__ == "__main__":`, calls `torch.export.export` on it.
Run as a script it is the cold path; checked by the engine, discovery takes its
example inputs from that same call.  Nothing is downloaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

HEADER = '''"""ExportLens benchmark model: {label}."""

import torch
from torch import nn
'''

FOOTER = """

if __name__ == "__main__":
    torch.export.export({class_name}(), {inputs}, strict={strict})
"""

MLP_BODY = """
WIDTH = 1024


class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(512, WIDTH),
            nn.ReLU(),
            nn.Linear(WIDTH, WIDTH),
            nn.ReLU(),
            nn.Linear(WIDTH, WIDTH),
            nn.ReLU(),
            nn.Linear(WIDTH, 10),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)
"""

TRANSFORMER_BODY = """
VOCAB = 1000
D_MODEL = 256
HEADS = 4
LAYERS = {layers}
SEQ = 64


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(D_MODEL)
        self.attn = nn.MultiheadAttention(D_MODEL, HEADS, batch_first=True)
        self.norm2 = nn.LayerNorm(D_MODEL)
        self.ff = nn.Sequential(nn.Linear(D_MODEL, 4 * D_MODEL), nn.GELU(), nn.Linear(4 * D_MODEL, D_MODEL))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.ff(self.norm2(x))


class Transformer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D_MODEL)
        self.pos = nn.Parameter(torch.zeros(1, SEQ, D_MODEL))
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.norm = nn.LayerNorm(D_MODEL)
        self.head = nn.Linear(D_MODEL, VOCAB)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens) + self.pos[:, : tokens.shape[1]]
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))
"""


@dataclass(frozen=True)
class ModelSpec:
    """One benchmark model: its class, its example inputs and its class definitions."""

    key: str  # short name used in the table and the JSON
    label: str  # human description
    class_name: str  # the module class that is exported
    inputs: str  # Python expression for the example-inputs tuple, evaluated in the file's globals
    body: str  # the file's definitions (imports come from HEADER)

    def source(self, strict: bool) -> str:
        """The whole file: definitions plus an export call with `strict=` set."""
        footer = FOOTER.format(class_name=self.class_name, inputs=self.inputs, strict=strict)
        return HEADER.format(label=self.label) + self.body + footer

    def write(self, folder: Path, strict: bool) -> Path:
        mode = "strict" if strict else "nonstrict"
        path = folder / f"{self.key}_{mode}.py"
        path.write_text(self.source(strict), encoding="utf-8")
        return path


def mlp() -> ModelSpec:
    return ModelSpec(
        key="mlp",
        label="MLP 512-1024-1024-1024-10, batch 32",
        class_name="MLP",
        inputs="(torch.randn(32, 512),)",
        body=MLP_BODY,
    )


def transformer(layers: int) -> ModelSpec:
    return ModelSpec(
        key="transformer",
        label=f"transformer {layers} layers, d=256, 4 heads, batch 2 x seq 64",
        class_name="Transformer",
        inputs="(torch.randint(0, VOCAB, (2, SEQ)),)",
        body=TRANSFORMER_BODY.replace("{layers}", str(layers)),
    )
