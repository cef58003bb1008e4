"""Findings for jobs that did not end in an export failure: crashes, timeouts, skips."""

from __future__ import annotations

from ..codes import registered
from ..diagnosis import DiagnosisContext
from ..diagnosis.locate import Sources, workspace_frames
from ..engine import JobOutcome
from ..findings import Finding, Related
from ..worker.wire.protocol import PASSES


def outcome_findings(outcome: JobOutcome, ctx: DiagnosisContext) -> list[Finding]:
    def finding(code: str, message: str, related: list[Related] | None = None) -> Finding:
        return Finding(
            related=related or [],
            path=ctx.path,
            range=ctx.anchor,
            severity=registered(code).severity,
            code=code,
            message=message,
            module=ctx.module,
            mode=ctx.shown_mode,
        )

    # What ran: torch.compile (a compile check), else the tracer; its findings say so first.
    what, said, doing = (
        ("torch.compile", "torch.compile: ", "compiling") if ctx.compiled else (ctx.mode, "", "exporting")
    )
    if outcome.status == "crashed":
        return [
            finding(
                "worker-crashed",
                f"{said}The export worker {_how(outcome)} while {doing} {ctx.label} "
                f"({what}); the module's code or a library it calls crashed the process.",
            )
        ]
    if outcome.status == "timeout":
        return [
            finding(
                "export-timeout",
                f"{said}The check of {ctx.label} ({what}) ran out of time{_during(outcome)}: it was "
                f"stopped after {outcome.seconds:.0f} s, so whether torch exports it is not known "
                "(this is not an export failure). If the model is slow or the machine busy, raise the "
                "limit (the `timeoutSeconds` setting / `--timeout`); if it never finishes, look for a "
                "loop that never ends or a wait in `__init__`, `forward` or the code that builds the "
                "example inputs.",
                _stopped_here(outcome, ctx),
            )
        ]
    if outcome.status == "skipped" and outcome.reason:
        return [finding("not-a-module", f"{said}Skipped {ctx.label}: {outcome.reason}.")]
    return []


def _during(outcome: JobOutcome) -> str:
    """Which pass ran out: the worker says (a check the engine gave up on does not)."""
    step = outcome.raw.get("stopped_in")
    return f" in {PASSES[step]}" if step else ""


def _how(outcome: JobOutcome) -> str:
    exit_info = outcome.exit or {}
    if "signal" in exit_info:
        return f"was killed by {exit_info['signal']}"
    if "code" in exit_info:
        return f"exited with status {exit_info['code']} (`os._exit`?)"
    if outcome.raw.get("worker_died"):
        return "died"
    return "stopped unexpectedly"


def _stopped_here(outcome: JobOutcome, ctx: DiagnosisContext) -> list[Related]:
    """The innermost workspace line of the child's stack when it was stopped (stack_at_stop.py)."""
    found = workspace_frames(list(outcome.raw.get("stopped_at") or []), ctx)
    if not found:
        return []
    place = Sources(ctx).place(found[0])  # innermost first, as faulthandler writes them
    where = f" in `{place.name}`" if place.name and not place.name.startswith("<") else ""
    return [
        Related(
            place.path, place.range, f"was running here{where} when stopped after {outcome.seconds:.0f} s"
        )
    ]
