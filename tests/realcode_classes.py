"""Which classes of a corpus case its export scripts export, or hold as parts: the truth for the
score's "no guess on an exported class" (tests/realcode_expected.py's `covered_lines`).

Read from what the scripts really build, never from ExportLens: each `export_*.py` of the case runs
as `__main__` in a subprocess (the worker's interpreter: it has torch) with `torch.export.export` /
`draft_export` replaced by a recorder that walks the module it is given (`mod.modules()`) and keeps
each class defined in a file of the case folder, then returns None without exporting (the corpus
scripts do not use what export returns; one that did would stop there, its earlier calls kept).
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import WORKER_PYTHON

PROGRAM = r"""
import json, runpy, sys
from pathlib import Path
import torch
import torch.export

folder = Path(sys.argv[1]).resolve()
found = set()

def record(mod, *args, **kwargs):
    for sub in mod.modules():
        file = getattr(sys.modules.get(type(sub).__module__), "__file__", None)
        if file and Path(file).resolve().is_relative_to(folder):
            found.add((str(Path(file).resolve().relative_to(folder)), type(sub).__qualname__))
    return None

torch.export.export = record
torch.export.draft_export = record
sys.path.insert(0, str(folder))
for script in sorted(folder.glob("export_*.py")):
    try:
        runpy.run_path(str(script), run_name="__main__")
    except Exception as exc:  # after its last export call, or a script that uses the result
        print(f"{script.name}: {type(exc).__name__}: {exc}", file=sys.stderr)
    for name, module in list(sys.modules.items()):  # each script imports the case's modules afresh
        if Path(getattr(module, "__file__", None) or "/").resolve().is_relative_to(folder):
            del sys.modules[name]
print(MARK + json.dumps(sorted(found)))
"""
MARK = "exported-classes: "  # the scripts print too: the answer is the line that starts so


@functools.cache
def exported_classes(folder: Path) -> frozenset[tuple[str, str]]:
    """(file relative to the case folder, class qualname) of every class the case's export calls
    export or build their module from."""
    command = [WORKER_PYTHON or sys.executable, "-c", f"MARK = {MARK!r}\n" + PROGRAM, str(folder)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    (answer,) = [line for line in done.stdout.splitlines() if line.startswith(MARK)]
    return frozenset((file, name) for file, name in json.loads(answer.removeprefix(MARK)))
