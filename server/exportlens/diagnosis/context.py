"""What the mapper needs to know about the job besides the failure record."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..findings import Range


@dataclass
class DiagnosisContext:
    path: str  # absolute path of the checked file
    source: str  # buffer text the job ran (may differ from disk)
    module: str  # module (class) name the finding belongs to
    mode: str  # "strict" | "non-strict": the tracer that ran
    anchor: Range  # fallback location: the export call, else the class name
    roots: list[str] = field(default_factory=list)  # workspace roots: frames here are "user" frames
    # Where the inputs came from: "export-call" means the user builds (and exports) the module
    # themselves; otherwise ExportLens built it with `Cls()`, in training mode by default.
    inputs: str = "export-call"
