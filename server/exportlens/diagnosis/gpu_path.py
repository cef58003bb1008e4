"""What only a machine with a GPU would hit: the second look's refusal, as a warning that says so.

The script asked whether a GPU is there (`torch.cuda.is_available()`), this machine said no, and
the module exported on the path the script takes here. The worker then exported the path a GPU
machine takes (worker/job/gpu_path.py); where torch refuses it there (or an op meets tensors on two
devices that torch's fake kernel let through) the refusal is diagnosed as usual and said as
`gpu-path-refused`: a warning on the culprit's line, the question's line as related information.
Never an error: the script exports where it runs.
"""

from __future__ import annotations

import re

from ..codes import registered
from ..findings import Finding, Related
from ..worker.wire.records import ExportSummary
from .context import DiagnosisContext
from .devices import fake_device_artifact
from .locate import Sources
from .mapping import diagnose

GPU_PATH_REFUSED = "gpu-path-refused"
# Who refused, in a refusal's message (mapping.py): the warning says who refuses in its own words.
_REFUSED = re.compile(r" (Strict|Non-strict) export \([^)]*\) refused `[^`]*`( \(exported as `[^`]*`\))?\.")


def gpu_path_findings(summary: ExportSummary, ctx: DiagnosisContext) -> list[Finding]:
    look = summary.get("gpu_path")
    failure = look.get("failure") if look else None
    if not look or look["status"] != "failed" or not failure or fake_device_artifact(failure):
        return []
    asked = look["asked"]
    questions = " / ".join(dict.fromkeys(f"`{a['question']}`" for a in asked)) or "the script's device check"
    placement = failure.get("placement")
    devices = ", ".join(f"`{d}`" for d in (placement["devices"] if placement else [])) or "a GPU"
    sources = Sources(ctx)
    related = [
        Related(
            str(a["path"]),
            sources.get(str(a["path"])).line_range(int(a["line"]) - 1),
            f"{a['question']} is False on this machine: the script takes its CPU path here",
        )
        for a in asked
    ]
    op = look.get("unchecked_op")
    verdict = (
        f"torch exports it (the fake kernel of `{op}` does not check devices) but the program fails there"
        if op
        else "torch refuses the export"
    )
    found = []
    for inner in diagnose(failure, ctx):
        if inner.severity != "error" or not registered(inner.code).refusal:
            continue
        what = _REFUSED.sub("", inner.message, count=1)
        what = what[:1].lower() + what[1:]  # it follows a colon
        path, where, moved = inner.path, inner.range, []
        if inner.path != ctx.path:  # a model file's line: said at the export call the user checks
            path, where = ctx.path, ctx.anchor
            moved = [Related(inner.path, inner.range, f"on the GPU path: `{inner.code}` here")]
        found.append(
            Finding(
                path=path,
                range=where,
                severity="warning",
                code=GPU_PATH_REFUSED,
                message=(
                    f"Only on a machine with a GPU: here {questions} is False and {ctx.label} exports on "
                    f"the CPU; where it is True the script puts it on {devices}, and there {verdict} "
                    f"(`{inner.code}`): {what}"
                ),
                module=ctx.module,
                mode=ctx.mode,
                related=related + moved + [r for r in inner.related if r.range != where or r.path != path],
            )
        )
    return found
