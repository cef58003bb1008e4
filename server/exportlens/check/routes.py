"""How one module of a document is exported: which file's call answers for it, with which subject.

Computed once from the document's placement (plan.py) and read by everything that builds a job
for the module: the check (placed.py), every fix proof (fixes/proof.py), Export this module, Save
.pt2 / ONNX, Compile with AOTInductor and the graph panel (lsp/).  A module another file exports
(`scripts/export.py` does `export(Net(), (x,))`: a site) is exported by that file's call; a part
that a parent file's export records is checked through that export; any other module by its own
file.  The other file runs from disk and imports the document (fixes prove through it with the
document patched in memory: worker/job/verify.py's `elsewhere`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..discovery import REAL_INPUTS, Subject, discovery_of
from ..document import Document
from ..reading import read_document
from .plan import Placement

Through = Literal["own", "site", "parent"]


@dataclass(frozen=True)
class Route:
    module: str  # the module of the document
    path: str  # the file whose call answers for it: the document's own, or another workspace file
    through: Through  # "own": its file's call; "site": another file exports it; "parent": a part there

    @property
    def elsewhere(self) -> bool:
        return self.through != "own"

    def describe(self) -> str:
        """For a message: "the export call in export.py", "a module of model.py", "its own file"."""
        name = Path(self.path).name
        if self.through == "site":
            return f"the call in {name}"
        return f"a module of {name}" if self.through == "parent" else "its own file"


def route_of(doc: Document, placement: Placement, module: str) -> Route:
    """The route of `module` of `doc` under `placement` (an export site beats a parent file)."""
    if (site := placement.sites.get(module)) is not None:
        return Route(module, site, "site")
    if (parent := placement.parents.get(module)) is not None:
        return Route(module, parent, "parent")
    return Route(module, doc.path, "own")


def routed_subject(route: Route, compiled: bool = False) -> tuple[Document, Subject] | None:
    """The other file's document and the module of it whose call answers for `route`'s module:
    that module itself (a site exports it by its name), else (a parent file) the first module with
    real inputs (`compiled`: with a compile call's), as the check takes them (elsewhere.py). None:
    the file is gone, does not parse, or has no such call any more."""
    if not route.elsewhere:
        return None
    try:
        there = read_document(route.path)
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    kinds = ("compile-call",) if compiled else REAL_INPUTS
    calls = [t for t in discovery_of(there).subjects if t.inputs_kind in kinds]
    subject = next((t for t in calls if t.name == route.module), calls[0] if calls else None)
    return (there, subject) if subject is not None else None
