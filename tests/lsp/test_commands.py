"""workspace/executeCommand: export now, graph, .pt2, re-check, status (no torch in the server)."""

from __future__ import annotations

import zipfile
from pathlib import Path

from .conftest import Session, line_of
from .models import DYNAMIC, GUARDED


async def test_export_module_returns_summary_and_graph(server: Session) -> None:
    await server.open("cmd.py", DYNAMIC)
    uri = (server.root / "cmd.py").resolve().as_uri()
    line = line_of(DYNAMIC, "y = self.fc(x)")  # any position inside the class
    result = await server.command("exportlens.exportModule", uri, {"line": line, "character": 4})
    assert result["module"] == "MLP" and result["status"] == "exported"
    assert result["summary"]["ops"] == 2 and "aten.linear" in result["graph"]
    assert result["summary"]["dynamic"][0]["max"] == 64
    assert result["findings"] == []


async def test_export_module_reports_findings(server: Session) -> None:
    await server.open("cmd_bad.py", GUARDED)
    uri = (server.root / "cmd_bad.py").resolve().as_uri()
    result = await server.command("exportlens.exportModule", uri, {"line": 3, "character": 6})
    assert result["status"] == "failed"
    assert [f["code"] for f in result["findings"]] == ["data-dependent-branch"]


async def test_graph_text(server: Session) -> None:
    uri = (server.root / "cmd.py").resolve().as_uri()
    result = await server.command("exportlens.graph", uri, "MLP")
    assert "aten.linear" in result["code"] and "aten.relu" in result["code"] and result["stale"] is False


async def test_save_pt2(server: Session, tmp_path: Path) -> None:
    uri = (server.root / "cmd.py").resolve().as_uri()
    target = tmp_path / "out" / "mlp.pt2"
    target.parent.mkdir()
    result = await server.command("exportlens.savePt2", uri, "MLP", str(target))
    assert result["status"] == "exported" and result["saved"], result
    assert target.exists() and zipfile.is_zipfile(target)


async def test_recheck(server: Session) -> None:
    uri = (server.root / "cmd.py").resolve().as_uri()
    mark = len(server.record.checked)
    assert (await server.command("exportlens.recheck", uri)) == {"scheduled": True}
    assert await server.wait_checked(uri, server.versions[uri], mark) == []


async def test_status_and_no_torch_in_the_server(server: Session) -> None:
    status = await server.command("exportlens.status")  # after exports above: the worker is up
    assert status["torchImported"] is False
    assert status["torch"] and status["python"]
    assert status["workerPid"] and status["workerPid"] != status["pid"]
    assert 0 < status["rssMb"] < 200
    maps = Path(f"/proc/{status['pid']}/maps").read_text()
    assert "libtorch" not in maps and "/torch/" not in maps
    assert "libtorch" in Path(f"/proc/{status['workerPid']}/maps").read_text()  # the worker does have it
