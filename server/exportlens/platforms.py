"""Where exports run: Linux (WSL included) and macOS, not native Windows.

The worker starts a child process per export (fork, or a fresh interpreter: worker/host/children.py),
puts it in its own process group, waits on pipes with `select` and caps it with `resource`: none
of that exists on native Windows.  There the CLI and the server still start and report what
reading a file says (static_findings.py), and say once why nothing is exported.  Stdlib only.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .discovery import discovery_of
from .findings import FileResult
from .reading import read_document

# Read at each call (not bound at import): a test stands in another platform by setting it.
PLATFORM = sys.platform

EXPORTS_NEED = "Linux, WSL or macOS"


def exports_unsupported() -> str | None:
    """Why exports cannot run on this machine, or None (they can)."""
    if PLATFORM != "win32":
        return None
    return (
        f"exports need {EXPORTS_NEED}: on native Windows ExportLens only runs its static checks (syntax"
        " errors, modules without example inputs). Run it inside WSL (VS Code: open the folder with"
        " the WSL extension) to see where torch.export refuses your modules."
    )


def static_results(files: list[Path]) -> tuple[list[FileResult], int]:
    """What reading each file says, without exporting; and how many modules that have example
    inputs (which an export would have checked) went unexported."""
    from .check.static_findings import encoding_finding, read_findings

    results: list[FileResult] = []
    modules = 0
    for file in files:
        path = str(file.resolve())
        result = FileResult(path)
        try:
            doc = read_document(path)
        except (SyntaxError, UnicodeDecodeError) as exc:
            result.diagnostics.append(encoding_finding(path, exc))
        else:
            result.diagnostics += read_findings(doc)
            modules += sum(subject.inputs_kind != "none" for subject in discovery_of(doc).subjects)
        results.append(result)
    return results, modules
