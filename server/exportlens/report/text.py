"""`path:line:col: severity[code]: message`, 1-based, like a compiler."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..findings import FileResult, Range
from ..notebook.located import in_cell
from .coverage import coverage, coverage_lines
from .identity import module_identity
from .paths import display_path

# A message's advice: from " Fix: " to the end of its sentence (a period before a blank or the end)
ADVICE = re.compile(r" Fix: .*?\.(?=\s|$)", re.S)
STOPPED_STATUSES = frozenset({"timeout", "cancelled"})  # the check did not finish
# A module checked by both tracers has the first of these its checks had.
VERDICT_ORDER = ("failed", "unfinished", "compiled", "exported")


def place(path: str, where: Range, cwd: Path) -> str:
    """`path:line:col`, 1-based; in a notebook `path:cell N:line:col`, the line in its cell."""
    cell = in_cell(path, where)
    shown = display_path(path, cwd)
    if cell is not None:
        shown, where = f"{shown}:cell {cell[0]}", cell[1]
    return f"{shown}:{where.start.line + 1}:{where.start.character + 1}"


def said_fix(message: str, proof: dict[str, Any] | None) -> str:
    """The message with its advice replaced by the fix the CLI proved, or by why none was
    (fixes/said.py); as it is when nothing was tried."""
    if proof is None:
        return message
    if proof.get("fix"):
        instead = f" Fix (proven): {proof['fix']}."
    else:
        instead = f" No fix proven: {'; '.join(proof.get('refused') or [])}."
    return ADVICE.sub(lambda _: instead, message, count=1)


def render_text(results: list[FileResult], cwd: Path) -> str:
    lines: list[str] = []
    verdicts: dict[tuple[str, str, str, str], str] = {}  # one per module and inputs, whatever the tracers
    for result in results:
        for d in result.diagnostics:
            first, *rest = said_fix(d.message, d.proof).splitlines() or [""]
            # A culprit may sit in another workspace file (a helper the module calls).
            lines.append(f"{place(d.path, d.range, cwd)}: {d.severity}[{d.code}]: {first}")
            lines += [f"    {line}" for line in rest]
            for rel in d.related:
                lines.append(f"    {place(rel.path, rel.range, cwd)}: note: {rel.message}")
        for module in result.modules:
            if module.status == "skipped":
                continue
            key = "unfinished" if module.status in STOPPED_STATUSES else module.status
            key = key if key in VERDICT_ORDER else "failed"
            seen = (*module_identity(result, module), module.name.partition("@")[2], str(module.inputs))
            verdicts[seen] = min(key, verdicts.get(seen, key), key=VERDICT_ORDER.index)
    counts = {"exported": 0, "failed": 0}
    for verdict in verdicts.values():
        counts[verdict] = counts.get(verdict, 0) + 1
    lines += docs_lines(results)
    errors = sum(d.severity == "error" for r in results for d in r.diagnostics)
    warnings = sum(d.severity == "warning" for r in results for d in r.diagnostics)
    compiled = f", {counts['compiled']} compile check(s)" if counts.get("compiled") else ""
    # A timeout says nothing of whether torch exports the module: neither succeeded nor failed.
    compiled += f", {counts['unfinished']} did not finish" if counts.get("unfinished") else ""
    lines.append(
        f"{len(results)} file(s): {counts['exported']} module export(s) succeeded, "
        f"{counts['failed']} failed{compiled}; {errors} error(s), {warnings} warning(s)"
    )
    if not results:  # every path named was skipped (not Python), or a folder held none
        lines.append("exportlens: nothing was checked: no Python file among the paths given")
    lines += coverage_lines(coverage(results, cwd))
    return "\n".join(lines) + "\n"


def docs_lines(results: list[FileResult]) -> list[str]:
    """Each link the findings have, once: the same `Finding.url` the editor links (codes/url_for)."""
    links = dict.fromkeys((d.code, d.url) for r in results for d in r.diagnostics if d.url)
    return [f"docs[{code}]: {url}" for code, url in links]
