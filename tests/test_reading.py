"""`read_document` (reading.py): a workspace file read again with the same text is the same document (its
one parse, its one discovery), and a new text is a new document even when the file's mtime and
size say nothing changed."""

from __future__ import annotations

import os
from pathlib import Path

from exportlens.discovery import discovery_of
from exportlens.reading import read_document

NET = "import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x * 2\n"


def test_the_same_text_is_the_same_document(tmp_path: Path) -> None:
    path = tmp_path / "net.py"
    path.write_text(NET)
    first = read_document(str(path))
    assert [t.name for t in discovery_of(first).subjects] == ["Net"]
    os.utime(path, (1, 1))  # touched: a new mtime, the same text
    again = read_document(str(path))
    assert again is first and discovery_of(again) is discovery_of(first)


def test_a_new_text_with_the_old_mtime_and_size_is_a_new_document(tmp_path: Path) -> None:
    path = tmp_path / "net.py"
    path.write_text(NET)
    stat = path.stat()
    first = read_document(str(path))
    changed = NET.replace("x * 2", "x * 3")
    path.write_text(changed)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # rewritten within the clock's tick
    assert path.stat().st_size == stat.st_size and path.stat().st_mtime_ns == stat.st_mtime_ns
    now = read_document(str(path))
    assert now is not first and now.text == changed
