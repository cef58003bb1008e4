"""The engine end to end: discovery, the real worker, results per module."""

from __future__ import annotations

from pathlib import Path

from exportlens.check import check_file
from exportlens.check.jobs import CheckOptions
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


async def test_graph_view_only_for_the_module_asked(engine: Engine, write) -> None:
    """The graph panel's view is built for the (path, module) the panel shows, for no other."""
    path = write(
        "two.py",
        """
        import torch

        class A(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(16, 4)

            def forward(self, x):
                return self.fc(x)

        class B(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(8, 2)

            def forward(self, x):
                return torch.relu(self.fc(x))
    """,
    )
    options = CheckOptions(roots=[str(Path(path).parent)], graph_views=frozenset({(path, "B")}))
    result = await check_file(engine, path, None, options)
    graphs = {m.name: m.graph for m in result.modules}
    assert graphs["A"] is not None and "view" not in graphs["A"] and "aten.linear" in graphs["A"]["code"]
    assert graphs["B"] is not None
    ops = [n["op"] for n in graphs["B"]["view"]["nodes"] if n["kind"] == "op"]
    assert ops == ["aten.linear.default", "aten.relu.default"]
