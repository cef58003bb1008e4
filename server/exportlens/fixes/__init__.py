"""Quick-fixes for ExportLens findings, editor-agnostic: each is one set of line edits on the buffer.

`fixes_for` maps a finding (its code, line and `fix` data) to candidate fixes; `proof.py` turns a
fix into a worker job that exports the patched text and compares it with eager mode.  One module
per kind: cond.py (torch.cond / torch.where), checks.py (torch._check), dims.py (Dim declarations,
dynamic_shapes, examples), small.py (.eval(), buffers, side effects, an export call).
"""

from __future__ import annotations

from typing import Any

from .edits import Edit, EditError, apply
from .model import Fix

__all__ = ["Edit", "EditError", "Fix", "apply", "fixes_for"]


def fixes_for(
    source: str, code: str, line: int, data: dict[str, Any] | None, module: str | None
) -> list[Fix]:
    """Candidate fixes for a finding with `code` on 0-based `line`; only those whose text parses."""
    from . import checks, cond, dims, small

    data = data or {}
    found: list[Fix] = []
    if code in ("data-dependent-branch", "data-dependent-guard"):
        found += cond.cond_fixes(source, line, code)
    if code == "data-dependent-guard":
        found += checks.check_fixes(source, line, code, data)
    if code.startswith("dim") or code in ("example-outside-dim-range",):
        found += dims.dim_fixes(source, line, code, data, module)
    found += small.small_fixes(source, line, code, data, module)
    good = []
    for fix in found:
        fix.module = fix.module or module
        if fix.disabled is None:
            try:
                apply(source, fix.edits)
            except EditError as exc:
                fix.disabled, fix.edits = f"the rewrite would not parse ({exc})", []
        good.append(fix)
    return good
