"""`path:line:col: severity[code]: message`, 1-based, like a compiler."""

from __future__ import annotations

from pathlib import Path

from ..findings import FileResult
from .paths import display_path


def render_text(results: list[FileResult], cwd: Path) -> str:
    lines: list[str] = []
    counts = {"exported": 0, "failed": 0}
    for result in results:
        for d in result.diagnostics:
            first, *rest = d.message.splitlines() or [""]
            # A culprit may sit in another workspace file (a helper the module calls).
            shown = display_path(d.path, cwd)
            lines.append(
                f"{shown}:{d.range.start.line + 1}:{d.range.start.character + 1}: "
                f"{d.severity}[{d.code}]: {first}"
            )
            lines += [f"    {line}" for line in rest]
            for rel in d.related:
                lines.append(
                    f"    {display_path(rel.path, cwd)}:{rel.range.start.line + 1}:"
                    f"{rel.range.start.character + 1}: note: {rel.message}"
                )
        for module in result.modules:
            key = "exported" if module.status == "exported" else "failed"
            key = "compiled" if module.compiled is not None else key  # a compile check (docs/compile.md)
            counts[key] = counts.get(key, 0) + (module.status != "skipped")
    errors = sum(d.severity == "error" for r in results for d in r.diagnostics)
    compiled = f", {counts['compiled']} compile check(s)" if counts.get("compiled") else ""
    lines.append(
        f"{len(results)} file(s): {counts['exported']} module export(s) succeeded, "
        f"{counts['failed']} failed{compiled}; {errors} error(s)"
    )
    return "\n".join(lines) + "\n"
