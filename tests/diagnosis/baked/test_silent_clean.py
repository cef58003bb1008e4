"""Realistic clean modules get no silent-corruption warning, in either tracer."""

from __future__ import annotations

import pytest

from exportlens.engine import Engine
from tests.conftest import check

CLEAN = {
    "mlp": """
        import torch
        from torch import nn


        class MLP(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 4))

            def forward(self, x):
                return self.net(x)


        if __name__ == "__main__":
            torch.export.export(MLP().eval(), (torch.randn(8, 16),))
    """,
    "cnn": """
        import torch
        from torch import nn


        class CNN(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 8, 3, padding=1)
                self.bn = nn.BatchNorm2d(8)
                self.drop = nn.Dropout2d(0.2)
                self.head = nn.Linear(8, 10)
                self.register_buffer("steps", torch.zeros((), dtype=torch.long))

            def forward(self, x):
                h = self.drop(torch.relu(self.bn(self.conv(x))))
                self.steps += 1
                return self.head(h.mean(dim=(2, 3)))


        if __name__ == "__main__":
            model = CNN()
            model.eval()
            torch.export.export(model, (torch.randn(2, 3, 16, 16),))
    """,
    "attention": """
        import math

        import torch
        import torch.nn.functional as F
        from torch import nn


        class Attention(nn.Module):
            def __init__(self, d=32, heads=4):
                super().__init__()
                self.heads = heads
                self.qkv = nn.Linear(d, 3 * d)
                self.out = nn.Linear(d, d)
                self.norm = nn.LayerNorm(d)
                self.dropout = 0.1

            def forward(self, x, mask=None):
                b, s, d = x.shape
                q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
                q, k, v = (t.view(b, s, self.heads, d // self.heads).transpose(1, 2) for t in (q, k, v))
                scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads)
                attn = F.dropout(scores.softmax(-1), self.dropout, training=self.training)
                y = (attn @ v).transpose(1, 2).reshape(b, s, d)
                return x + self.out(y)


        if __name__ == "__main__":
            torch.export.export(Attention().eval(), (torch.randn(2, 10, 32),))
    """,
    "cond": """
        import torch


        class Gate(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(4, 4)

            def forward(self, x):
                def positive(x):
                    return x.sin()

                def negative(x):
                    return x.cos()

                return torch.cond(self.fc(x).sum() > 0, positive, negative, (x,))


        if __name__ == "__main__":
            torch.export.export(Gate(), (torch.randn(2, 4),))
    """,
}


@pytest.mark.parametrize("mode", ["non-strict", "strict"])
@pytest.mark.parametrize("name", sorted(CLEAN))
async def test_clean_module_gets_no_warning(engine: Engine, write, name: str, mode: str) -> None:
    path = write(f"{name}_{mode}.py", CLEAN[name])
    result = await check(engine, path, mode=mode)
    assert [m.status for m in result.modules] == ["exported"], result.diagnostics
    assert result.diagnostics == []
