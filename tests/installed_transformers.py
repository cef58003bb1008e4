"""The transformers the worker's interpreter has (EXPORTLENS_TEST_PYTHON, else this one), and
torch's own verdict with it: tests whose truth depends on the installed release read it here rather
than from one release's layout (issue 44; `make test-transformers-older` runs them on a second one).
"""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

from tests.conftest import WORKER_PYTHON
from tests.paths import ROOT

_WHERE = """
import importlib.metadata, importlib.util
spec = importlib.util.find_spec("transformers")  # its folder: not imported
print(importlib.metadata.version("transformers"))
print(next(iter(spec.submodule_search_locations)))
"""


@functools.lru_cache(maxsize=1)
def installed() -> tuple[str, Path]:
    """(version, package folder) of the worker interpreter's transformers."""
    done = subprocess.run(
        [WORKER_PYTHON or sys.executable, "-c", _WHERE], capture_output=True, text=True, check=True
    )
    version, folder = done.stdout.split("\n")[:2]
    return version, Path(folder)


@functools.lru_cache(maxsize=8)
def torch_breaks(case: str) -> tuple[str, ...]:
    """`script: file:line gbNNNN ...` of each graph break torch logs in a corpus case, run by the
    worker's interpreter (bench/compile_truth.py: TORCH_LOGS=graph_breaks, no ExportLens)."""
    done = subprocess.run(
        [WORKER_PYTHON or sys.executable, str(ROOT / "bench" / "compile_truth.py"), "--case", case],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    prefix = f"{case} "
    said = [line.removeprefix(prefix) for line in done.stdout.splitlines() if line.startswith(prefix)]
    return tuple(line for line in said if not line.endswith(": no graph break"))
