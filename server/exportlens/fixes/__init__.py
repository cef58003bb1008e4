"""Quick-fixes for ExportLens findings, editor-agnostic: each is one set of line edits on the buffer.

`fixes_for` maps a finding (its code, line and `fix` data) on a `Document` to candidate fixes,
each holding the text it proposes as one `Document` (`Fix.candidate`); `proof.py` turns a fix into
a worker job that exports that text and compares it with eager mode.  One module
per kind: cond.py (torch.cond / torch.where), checks.py (torch._check), dims.py (Dim declarations,
dynamic_shapes, examples), small.py (.eval(), buffers, side effects, an export call), compiled.py
(graph breaks: proven by compiling the candidate instead), cache_wrapper.py (a causal LM's
cache: the library's exportable wrapper, proven by its decode step too).
"""

from __future__ import annotations

from typing import Any

from ..document import Document
from .edits import Edit, EditError, apply
from .model import Fix

__all__ = ["Edit", "EditError", "Fix", "apply", "fixes_for"]


def fixes_for(
    doc: Document, code: str, line: int, data: dict[str, Any] | None, module: str | None
) -> list[Fix]:
    """Candidate fixes for a finding with `code` on 0-based `line`; only those whose text parses."""
    from . import cache_wrapper, checks, compiled, cond, dims, small

    data = data or {}
    found: list[Fix] = []
    if code in compiled.BREAK_CODES:
        found += compiled.compile_fixes(doc, line, code, data)
    if code in ("data-dependent-branch", "data-dependent-guard"):
        found += cond.cond_fixes(doc, line, code)
    if code == "data-dependent-guard":
        found += checks.check_fixes(doc, line, code, data)
    if code.startswith("dim") or code in ("example-outside-dim-range",):
        found += dims.dim_fixes(doc, line, code, data, module)
    found += small.small_fixes(doc, line, code, data, module)
    found += cache_wrapper.wrapper_fixes(doc, code, data, module)
    good = []
    for fix in found:
        fix.module = fix.module or module
        if fix.disabled is None:
            try:
                fix.candidate = apply(doc, fix.edits)
            except EditError as exc:
                fix.disabled, fix.edits = f"the rewrite would not parse ({exc})", []
        good.append(fix)
    return good
