"""What the mapper needs to know about the job besides the failure record."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..document import Document
from ..findings import Range


@dataclass
class DiagnosisContext:
    document: Document  # the text the job ran (the buffer, which may differ from disk), parsed once
    module: str  # module (class) name the finding belongs to
    mode: str  # "strict" | "non-strict": the tracer that ran
    anchor: Range  # fallback location: the export call, else the class name
    roots: list[str] = field(default_factory=list)  # workspace roots: frames here are "user" frames
    # Where the inputs came from: "export-call" means the user builds (and exports) the module
    # themselves; otherwise ExportLens built it with `Cls()`, in training mode by default.
    inputs: str = "export-call"
    # The class the job exported when `module` does not name it, and what the export call passed:
    # `Net` (exported as `model`)
    exported: str | None = None
    exported_as: str | None = None
    # A compile check (check/compiled.py): dynamo traced it as torch.compile does, not an export.
    compiled: bool = False

    @property
    def shown_mode(self) -> str:
        """A finding's `mode`: "compile" for a compile check, else the tracer that ran."""
        return "compile" if self.compiled else self.mode

    @property
    def label(self) -> str:
        """How messages name the module: `Net`, or `Net` (exported as `model`); a second export call of
        a class (`Net@15`, discovery's name) by its line: `Net` (exported as `model` on line 15)."""
        name, _, line = self.module.partition("@")
        if line == "compile":  # the compile check of a module also exported (check/compiled.py)
            return f"`{self.exported or name}` (compiled)"
        on_line = f" on line {line}" if line else ""
        if self.exported is None:
            if not line:
                return f"`{name}`"
            return f"`{name}` (exported{f' as `{self.exported_as}`' if self.exported_as else ''}{on_line})"
        return f"`{self.exported}` (exported as `{self.exported_as or name}`{on_line})"

    @property
    def class_name(self) -> str:
        """The module's class: where the file's class is looked up by name."""
        return self.exported or self.module

    @property
    def path(self) -> str:
        """Absolute path of the checked file."""
        return self.document.path

    @property
    def source(self) -> str:
        return self.document.text
