"""What a compile check reports (worker/job/compiled.py): its graphs, graph breaks and recompiles.

Stdlib only, like records.py: the worker runs in the user's interpreter.
"""

from __future__ import annotations

from typing import TypedDict

from .records import Frame


class _BreakRequired(TypedDict):
    message: str  # torch's own text of the break: type, explanation, hints, link
    frames: list[Frame]  # the user's stack at the break, outermost first


class GraphBreak(_BreakRequired, total=False):
    gb_type: str  # torch's graph-break type ("Data-dependent branching")
    gb_id: str  # its id in torch's graph-break registry ("gb0170")
    explanation: str  # torch's explanation, from the message or the registry
    hints: list[str]  # torch's hints, from the message or the registry


class _RecompileRequired(TypedDict):
    reason: str  # torch's guard failure reason ("tensor 'x' size mismatch at index 0 ...")
    dim: str  # the input dim that changed (`x.shape[0]`)
    sizes: list[int]  # the sizes it was called with, in order
    frames: list[Frame]  # where the guard that failed was added: the line that specialised the size


class Recompile(_RecompileRequired, total=False):
    limit: int  # the user's torch's recompile limit (then it runs the frame eagerly)
    # each remedy tried on a fresh compile at the same calls (worker/job/recompiles.py): "" when
    # proven (no recompile, outputs match eager), else what torch did instead
    tried: dict[str, str]
    hint: str  # torch's own hint in the guard failure (a state recompile: `dim` is "state")
    # a switch the script makes (`dim` "mode" / "dtype" / "autocast" / "grad"): "eval@12",
    # "no_grad()@14"; a number argument it gives a new value each call (`dim` "value"): "temperature@30"
    switch: str
    # the other switches made before the same call, "kind:value@line" ("mode:eval@33"): one compile
    also: list[str]
    values: list[float]  # `dim` "value": the values it was called with, in order


class _ReportRequired(TypedDict):
    fullgraph: bool  # the compile call says `fullgraph=True`: each break is an error
    graphs: int
    breaks: list[GraphBreak]
    recompiles: list[Recompile]


class CompileReport(_ReportRequired, total=False):
    recompile_error: str  # the recompile pass could not run (the module raised on other sizes)
