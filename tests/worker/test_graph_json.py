"""worker/capture/graph_json.py on real exported programs: kinds, shapes with named dims, modules,
sites, branches."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

from exportlens.worker.capture import graph_json
from exportlens.worker.capture.graph_json import graph_view

SOURCE = """
import torch
from torch import nn


class Inner(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def forward(self, x):
        return self.fc(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()
        self.register_buffer("count", torch.zeros(1))

    def forward(self, x):
        self.count.add_(1)
        y = self.inner(x)
        z = torch.cond(y.sum() > 0, lambda t: t.sin(), lambda t: t.cos(), (y,))
        return z * 2


class Chain(nn.Module):
    def forward(self, x):
        for _ in range(40):
            x = x + 1
        return x
"""


def _load(tmp_path: Path) -> tuple[Any, str]:
    path = tmp_path / "model_file.py"
    path.write_text(SOURCE, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("model_file", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, str(path)


def test_the_program_as_a_graph(tmp_path: Path) -> None:
    import torch

    module, path = _load(tmp_path)
    batch = torch.export.Dim("batch", min=2, max=64)
    program = torch.export.export(module.Model(), (torch.randn(4, 16),), dynamic_shapes=({0: batch},))
    view = graph_view(program, path)
    assert "error" not in view and not view["truncated"]
    nodes = {n["id"]: n for n in view["nodes"]}
    kinds = {n["name"]: n["kind"] for n in view["nodes"] if n["branch"] is None}
    assert kinds["p_inner_fc_weight"] == "parameter" and kinds["b_count"] == "buffer"
    assert kinds["x"] == "user_input"
    assert nodes["p_inner_fc_weight"].get("target") == "inner.fc.weight"
    symbol = str(program.graph_module.graph.find_nodes(op="placeholder", target="x")[0].meta["val"].shape[0])
    assert nodes["x"]["shape"] == f"[{symbol}, 16]" and nodes["x"]["dtype"] == "float32"
    linear = nodes["linear"]
    assert linear["op"] == "aten.linear.default"
    assert linear["inputs"] == ["x", "p_inner_fc_weight", "p_inner_fc_bias"]
    assert linear["module"] == ["inner", "inner.fc"] and view["modules"]["inner.fc"] == "Linear"
    assert (
        linear.get("path") == path
        and linear.get("line") == SOURCE.splitlines().index("        return self.fc(x)") + 1
    )
    assert [f["code"] for f in linear.get("stack", [])] == ["y = self.inner(x)", "return self.fc(x)"]
    # every op of the program is a node; outputs by their kind
    ops = [n for n in program.graph_module.graph.nodes if n.op == "call_function"]
    assert sum(1 for n in view["nodes"] if n["kind"] == "op" and n["branch"] is None) == len(ops)
    outputs = [n["kind"] for n in view["nodes"] if n["op"] == "output" and n["branch"] is None]
    assert outputs == [s.kind.name.lower() for s in program.graph_signature.output_specs]
    # cond's two branches, each a group whose output feeds the cond node
    assert [b["name"] for b in view["branches"]] == ["true_graph_0", "false_graph_0"]
    sin = next(n for n in view["nodes"] if n["op"] == "aten.sin.default")
    assert sin["branch"] == "cond/true_graph_0" and sin["id"] == "cond/true_graph_0/sin"
    assert "cond/true_graph_0/output" in nodes["cond"]["inputs"]
    assert all(i in nodes for n in view["nodes"] for i in n["inputs"])  # no edge to nowhere
    json.dumps(view)  # it crosses the process boundary


def test_bounded(tmp_path: Path, monkeypatch: Any) -> None:
    import torch

    module, path = _load(tmp_path)
    program = torch.export.export(module.Chain(), (torch.randn(3),))
    monkeypatch.setattr(graph_json, "NODE_LIMIT", 10)
    view = graph_view(program, path)
    assert len(view["nodes"]) == 10 and view["truncated"] and view["total"] == 42  # x, 40 adds, the output
