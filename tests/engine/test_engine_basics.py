"""The engine end to end: discovery, the real worker, results per module."""

from __future__ import annotations

from exportlens.engine import Engine
from tests.conftest import check, line_of


async def test_clean_module_exports_with_ops(engine: Engine, write) -> None:
    path = write(
        "clean.py",
        """
        import torch

        class MLP(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(16, 4)

            def forward(self, x):
                return torch.relu(self.fc(x))
    """,
    )
    result = await check(engine, path)
    assert result.diagnostics == []
    (module,) = result.modules
    assert (module.name, module.status, module.inputs, module.mode) == (
        "MLP",
        "exported",
        "inferred",
        "non-strict",
    )
    assert module.line == line_of(path, "class MLP")
    assert module.ops == 2
    assert module.graph is not None and "aten.linear" in module.graph["code"]
