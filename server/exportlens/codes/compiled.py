"""Codes of a compile check (issue 31): what `torch.compile` meets in a module the workspace compiles.

Made from the child's compile report (`worker/job/compiled.py`), placed by `diagnosis/compiled.py`;
each message says it is torch.compile's ("torch.compile: ..."), never an export's.
"""

from __future__ import annotations

from .model import Code, _c

# Each proven by compiling the fixed text again (fixes/compiled.py): none offered unproven.
BREAK_FIXES = (
    "cond",
    "where",
    "guard-compiling",
    "remove",
    "reorder-logging",
    "capture-scalars",
    "ignore-logging",
    "library-config",
    "capture-dynamic-shapes",
)

COMPILE_DOCS = "https://docs.pytorch.org/docs/stable/torch.compiler_troubleshooting.html"

CODES: dict[str, Code] = {
    c.code: c
    for c in (
        _c(
            "compile-graph-break",
            "torch.compile splits the graph here: this line runs in Python between two compiled graphs "
            "(the program still runs, slower)",
            "follow torch's hint in the message: keep the line off the compiled path, or rewrite it",
            severity="warning",
            refusal=False,
            tracer=None,
            library=True,
            fixes=BREAK_FIXES,
        ),
        _c(
            "compile-graph-break-fullgraph",
            "a graph break in a module compiled with `fullgraph=True`: torch.compile raises here",
            "follow torch's hint in the message, or drop `fullgraph=True` to let the graph break",
            tracer=None,
            library=True,
            fixes=BREAK_FIXES,
        ),
        _c(
            "compile-recompile",
            "torch.compile compiles the module again for each new size of this input: the code pins the "
            "size to a constant, so every new batch recompiles (until the recompile limit, then eager)",
            "avoid specialising on the size here (keep it a tensor op, not a Python int or loop); "
            "`dynamic=True` / `mark_dynamic` only where the message says they were proven",
            severity="warning",
            refusal=False,
            tracer=None,
        ),
        _c(
            "compile-not-checked",
            "the compiled function runs a training step itself (`loss.backward()`, `optimizer.step()`), "
            "which the check never runs, so it was not checked",
            "compile the forward or the loss on its own to have it checked",
            severity="information",
            refusal=False,
            tracer=None,
        ),
    )
}
