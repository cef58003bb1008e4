"""`--fix`'s pure parts (fixes/apply_cli.py): which fix is applied (the proven one, by key, made
again on the current text), the file's own encoding and line endings, and the writes it refuses.
The real CLI and worker: tests/cli/test_cli_fix.py."""

from __future__ import annotations

import asyncio
from pathlib import Path

from exportlens.check.jobs import CheckOptions
from exportlens.check.plan import Placement, PlannedFile
from exportlens.document import Document
from exportlens.findings import FileResult, Finding, Range
from exportlens.fixes import fixes_for
from exportlens.fixes.apply_cli import Fixed, conclude, decoded, encoded, fix_file, unified, write

SOURCE = """import torch


class Positive(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x + 1
        return x - 1
"""
LINE = 5  # the `if`, 0-based


def planned(tmp_path: Path) -> PlannedFile:
    path = tmp_path / "model.py"
    path.write_text(SOURCE, encoding="utf-8")
    return PlannedFile(Document(str(path), SOURCE), CheckOptions(), Placement())


def finding(path: str, proof: dict[str, object] | None) -> Finding:
    where = Range.of(LINE, 11, LINE, 22)
    return Finding(
        path, where, "error", "data-dependent-branch", "m. Fix: x.", module="Positive", proof=proof
    )


def run(plan: PlannedFile, proof: dict[str, object] | None) -> tuple[Fixed | None, list[str]]:
    checked: list[str] = []

    async def check(again: PlannedFile) -> FileResult:
        checked.append(again.doc.text)
        return FileResult(again.doc.path)  # the re-check of the fixed text: nothing left

    result = FileResult(plan.doc.path, diagnostics=[finding(plan.doc.path, proof)])
    return asyncio.run(fix_file(plan, result, check)), checked


def test_the_proven_fix_is_applied_then_the_file_checked_again(tmp_path: Path) -> None:
    plan = planned(tmp_path)
    fix = next(f for f in fixes_for(plan.doc, "data-dependent-branch", LINE, None, "Positive") if f.verify)
    assert fix.candidate is not None
    fixed, checked = run(plan, {"fix": "Rewrite as torch.cond (exports)", "key": fix.key})
    assert fixed is not None and fixed.changed
    assert fixed.after == fix.candidate.text and "torch.cond(" in fixed.after
    assert fixed.applied == ["Rewrite as torch.cond (exports)"] and checked == [fixed.after]


def test_a_refused_or_unknown_proof_is_never_applied(tmp_path: Path) -> None:
    plan = planned(tmp_path)
    for proof in ({"fix": None, "refused": ["Rewrite as torch.cond (does not export: X)"]}, None):
        fixed, checked = run(plan, proof)
        assert fixed is not None and not fixed.changed and checked == [], proof
    fixed, _ = run(plan, {"fix": "Rewrite as torch.cond (exports)", "key": "0" * 16})
    assert fixed is not None and fixed.after == SOURCE, "a key of another text's fix"


def test_a_file_changed_while_checked_is_refused(tmp_path: Path) -> None:
    plan = planned(tmp_path)
    Path(plan.doc.path).write_text(SOURCE + "# edited\n", encoding="utf-8")
    fixed, checked = run(plan, None)
    assert fixed is not None and fixed.refused == "it changed while it was checked" and checked == []


def test_write_refuses_a_file_changed_since_read_and_a_text_that_does_not_parse(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n")
    changed = Fixed(str(path), b"x = 0\n", "x = 0\n", "x = 2\n")
    write(changed)
    assert changed.refused == "it changed since it was read" and path.read_bytes() == b"x = 1\n"
    broken = Fixed(str(path), b"x = 1\n", "x = 1\n", "x = (\n")
    write(broken)
    assert broken.refused == "the fixed text would not parse" and path.read_bytes() == b"x = 1\n"
    good = Fixed(str(path), b"x = 1\n", "x = 1\n", "x = 2\n")
    write(good)
    assert good.refused is None and path.read_bytes() == b"x = 2\n"


def test_the_file_keeps_its_encoding_and_line_endings() -> None:
    data = "# -*- coding: latin-1 -*-\r\nname = 'café'\r\n".encode("latin-1")
    text = decoded(data)
    assert text == "# -*- coding: latin-1 -*-\nname = 'café'\n"
    assert encoded(text.replace("café", "thé"), data) == data.replace(
        "café".encode("latin-1"), "thé".encode("latin-1")
    )


def test_diff_and_summary(tmp_path: Path, capsys: object) -> None:
    fixed = Fixed(str(tmp_path / "m.py"), b"x = 1", "x = 1", "x = 2", ["Set x (exports)"])
    assert unified(fixed, tmp_path) == (
        "--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-x = 1\n\\ No newline at end of file\n"
        "+x = 2\n\\ No newline at end of file\n"
    )
    assert conclude([fixed], False, tmp_path) is True
    out, err = capsys.readouterr()  # type: ignore[attr-defined]
    assert out == unified(fixed, tmp_path) and not (tmp_path / "m.py").exists(), "--diff writes nothing"
    assert "m.py: would fix: Set x (exports)" in err and "1 proven fix(es) in 1 file(s) would apply" in err
