"""Hand-built snapshots (lsp/session.py's `Snapshot`) for the editor's edge: hover, lens and what
is published are pure functions of one, tested in milliseconds with no server or worker."""

from __future__ import annotations

import dataclasses
from typing import Any

from exportlens.check.plan import Placement
from exportlens.config.project import Project
from exportlens.config.settings import Settings
from exportlens.document import Document
from exportlens.findings import Finding, ModuleResult, Range
from exportlens.lsp.session import Snapshot
from exportlens.lsp.state import ModuleEntry

SOURCE = """\
import torch


class Net(torch.nn.Module):
    def forward(self, x):
        return x * 2


class Head(torch.nn.Module):
    def forward(self, x):
        return x + 1


if __name__ == "__main__":
    torch.export.export(Net(), (torch.randn(2, 3),))
"""
PATH = "/w/net.py"
NET_LINE = SOURCE.splitlines().index("class Net(torch.nn.Module):")
HEAD_LINE = SOURCE.splitlines().index("class Head(torch.nn.Module):")


def finding(line: int, code: str = "data-dependent-branch", module: str = "Net") -> Finding:
    return Finding(PATH, Range.of(line, 8, line, 20), "error", code, f"{code} here", module=module)


def entry(
    key: str = "k", status: Any = "exported", findings: list[Finding] | None = None, **kw: Any
) -> ModuleEntry:
    result = ModuleResult("Net", NET_LINE + 1, "export-call", "non-strict", status, seconds=0.1, ops=1)
    return ModuleEntry(key=key, results=[result], findings=findings or [], version=1, **kw)


def snapshot(source: str = SOURCE, **changes: Any) -> Snapshot:
    base = Snapshot(
        uri="file:///w/net.py",
        document=Document(PATH, source, version=1),
        settings=Settings(),
        trusted=True,
        roots=("/w",),
        keys={"Net": "k"},
        results={},
        running=frozenset(),
        cancelled=frozenset(),
        placement=Placement(),
        graph_views=frozenset(),
        project=Project(),
        skipped=None,
    )
    return dataclasses.replace(base, **changes)
