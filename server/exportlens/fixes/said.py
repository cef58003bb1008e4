"""The fix the CLI says (issue 40, item 4): the rewrite proven on this code, or none.

A finding's message ends with its code's advice (`Fix: use torch.cond(...)`), the same in the
editor and the CLI. The editor proves each quick-fix before offering it (lsp/code_actions.py); the
CLI proves them here, after the check, as the editor does: the candidates `fixes_for` makes for a
finding of the checked file, in order, up to the first that is proven (`PROVEN_AT_MOST` tried).
`Finding.proof` keeps the verdict (JSON's `proof`, and the results store); the text report says the
proven rewrite in place of the advice, or that none was proven and why (report/text.py);
`check --fix` applies the proven one (fixes/apply_cli.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..check.placed import check_planned
from ..check.plan import PlannedFile
from ..check.run import EarlyReport
from ..codes import registered
from ..engine import Engine
from ..findings import FileResult, Finding
from . import fixes_for
from .model import Fix
from .proof import proof_job, verdict

PROVEN_AT_MOST = 3  # candidates proven per finding (each is one more export)


async def checked(engine: Engine, planned: PlannedFile, early: EarlyReport | None = None) -> FileResult:
    """The file's check, then the proofs of its findings' fixes (`early`: check_planned's)."""
    result = await check_planned(engine, planned, early)
    for finding in result.diagnostics:
        if registered(finding.code).fixes and " Fix: " in finding.message:
            finding.proof = await _proof(engine, planned, finding)
    return result


async def _proof(engine: Engine, planned: PlannedFile, finding: Finding) -> dict[str, Any] | None:
    doc = planned.doc
    if Path(finding.path).resolve() != Path(doc.path).resolve():
        return None  # a culprit in another file: its own check proves its fixes
    candidates = fixes_for(doc, finding.code, finding.range.start.line, finding.fix, finding.module)
    if not candidates:
        return None
    refused: list[str] = [f"{fix.title}: {fix.disabled}" for fix in candidates if fix.disabled]
    strict = None if finding.mode is None else finding.mode == "strict"
    for fix in [c for c in candidates if not c.disabled and c.verify][:PROVEN_AT_MOST]:
        proof = await _prove(engine, planned, fix, strict)
        if proof is None:
            continue
        title, proven = proof
        if proven:  # `key`: which candidate, for --fix (fixes/apply_cli.py)
            return {"fix": title, "key": fix.key}
        refused.append(title)
    return {"fix": None, "refused": refused} if refused else None


async def _prove(
    engine: Engine, planned: PlannedFile, fix: Fix, strict: bool | None
) -> tuple[str, bool] | None:
    job = proof_job(planned.doc, fix, fix.module, strict, planned.options, planned.placement)
    if job is None:
        return None
    proof = verdict(await engine.run(job), fix)
    return f"{fix.title} {proof.suffix()}", proof.proven
