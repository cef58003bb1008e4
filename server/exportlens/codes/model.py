"""What one diagnostic code declares: meaning, severity, tracer, library, quick-fix kinds.

Each code is declared once with `_c` in one of `refusals.py`, `outcomes.py`, `baked.py`; codes
never change meaning once shipped (editors and CI configs key on them).  docs/codes.md documents
each one under an anchor of the same name; tests/codes/test_codes_registry.py checks the docs, every
code literal of the package and the fixes against the declarations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # findings.py imports the codes to check them: no import cycle at run time
    from .findings import Severity

EXPORT_DOCS = "https://pytorch.org/docs/stable/export.html"
COND_DOCS = "https://pytorch.org/docs/stable/cond.html"
EXPORTDB = "https://pytorch.org/docs/main/generated/exportdb/index.html"
CUSTOM_OPS = "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html"

# Which of torch.export's tracers refuses it (torch 2.13): strict = dynamo reads the bytecode,
# non-strict = forward runs on fake tensors; for a warning, which tracer's export it is found in.
Tracer = Literal["strict", "non-strict", "both"]


@dataclass(frozen=True)
class Code:
    code: str
    why: str  # what went wrong, in plain words
    fix: str  # what to do next
    severity: Severity = "error"
    url: str | None = None  # None: this code's anchor in docs/codes.md
    refusal: bool = True  # torch refused the code; False: it raised, exited, ran out of memory, ...
    tracer: Tracer | None = "both"  # None: not a tracer's doing (the code itself, ExportLens's own)
    # Its finding may name the library line that refused (a related location, `fix["library"]`).
    library: bool = False
    fixes: tuple[str, ...] = ()  # the `Fix.kind`s fixes/ offers for it
    # The check did not finish, so whether torch exports the module is not known: the CLI exits
    # 3 when nothing is an error but something is undecided (a timeout must not pass CI quietly).
    undecided: bool = False
    # The other tracer, offered after the fix (`use strict mode`) when only one tracer refuses this:
    # dropped where both tracers are known to refuse (merge.py).
    switch: str = ""
    # ExportLens's own: it could not build what to export, ran out of time, found no inputs or no
    # place to check it, so torch said nothing. Never an error (issue 40): the CLI never exits 1 on
    # an error torch would not raise; a finding re-said elsewhere (check/elsewhere.py) keeps it.
    own: bool = False

    def __post_init__(self) -> None:
        if self.own and self.severity == "error":
            raise ValueError(f"{self.code!r} is ExportLens's own (no torch verdict): it cannot be an error")

    @property
    def anchor(self) -> str:
        """Its section of docs/codes.md: the heading `## <code>` has this anchor."""
        return self.code


def _c(
    code: str,
    why: str,
    fix: str,
    url: str | None = None,
    severity: Severity = "error",
    refusal: bool = True,
    *,
    tracer: Tracer | None,
    library: bool = False,
    fixes: tuple[str, ...] = (),
    undecided: bool = False,
    switch: str = "",
    own: bool = False,
) -> Code:
    return Code(code, why, fix, severity, url, refusal, tracer, library, fixes, undecided, switch, own)
