"""exportlens.graphView through the real server and worker: the graph the panel draws."""

from __future__ import annotations

from .conftest import Session, line_of
from .models import DYNAMIC, GUARDED


async def test_graph_view_of_an_exported_module(server: Session) -> None:
    await server.open("view.py", DYNAMIC)
    uri = (server.root / "view.py").resolve().as_uri()
    result = await server.command("exportlens.graphView", uri, "MLP")
    assert result["module"] == "MLP" and result["stale"] is False and result["findings"] == []
    [only] = result["results"]
    assert only["status"] == "exported"
    view = only["view"]
    ops = [n for n in view["nodes"] if n["kind"] == "op"]
    assert [n["op"] for n in ops] == ["aten.linear.default", "aten.relu.default"]
    linear = ops[0]
    assert linear["line"] == line_of(DYNAMIC, "y = self.fc(x)") + 1 and linear["code"] == "y = self.fc(x)"
    assert linear["module"] == ["fc"] and view["modules"] == {"fc": "Linear"}
    x = next(n for n in view["nodes"] if n["kind"] == "user_input")
    symbol = x["shape"].split(",")[0].strip("[")
    assert x["shape"] == f"[{symbol}, 16]" and symbol.startswith("s")  # the batch Dim, by its symbol
    assert linear["shape"] == f"[{symbol}, 4]"
    kinds = sorted(n["kind"] for n in view["nodes"] if n["op"] in ("placeholder", "output"))
    assert kinds == ["parameter", "parameter", "user_input", "user_output"]


async def test_graph_view_of_a_failed_export(server: Session) -> None:
    await server.open("view_bad.py", GUARDED)
    uri = (server.root / "view_bad.py").resolve().as_uri()
    result = await server.command("exportlens.graphView", uri, "MLP")
    assert [r["view"] for r in result["results"]] == [None]
    assert result["results"][0]["status"] == "failed"
    [finding] = result["findings"]
    assert finding["code"] == "data-dependent-branch"
    assert finding["range"]["start"]["line"] == line_of(GUARDED, "if (y > 0).any():")
