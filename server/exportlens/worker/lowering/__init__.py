"""After a clean export: will the program lower to where it ships? (issue 17, docs/targets.md)

One module per target (`core_aten.py`, `onnx.py`, `aoti.py`), each with
`check(program, attempt, path, budget) -> LoweringResult`.  The child runs the job's targets in the
order asked, after the export and its summary; a target that raises is reported as its own
internal failure, never as the export's.  Stdlib at import time: each module imports what its
target needs (onnxscript, onnxruntime, inductor) only when that target runs.
"""

from __future__ import annotations

import importlib
import time
from typing import Any

from ..core.budget import Budget, OutOfBudget
from ..wire.protocol import TARGET_OUT_OF_TIME
from ..wire.records import LoweringResult

# The target -> the module that checks it.  `export` is the export itself: nothing more to run.
MODULES = {"core-aten": ".core_aten", "onnx": ".onnx", "aoti": ".aoti"}


def lower(targets: list[str], program: Any, attempt: Any, path: str, budget: Budget) -> list[LoweringResult]:
    results: list[LoweringResult] = []
    for target in targets:
        if target not in MODULES:
            continue
        started = time.perf_counter()
        try:
            module = importlib.import_module(MODULES[target], __package__)
            result: LoweringResult = module.check(program, attempt, path, budget)
        except OutOfBudget:
            result = {"target": target, "ok": False, "skipped": TARGET_OUT_OF_TIME}
        except BaseException as exc:  # noqa: BLE001 - a lowering's own bug is not the model's failure
            result = {"target": target, "ok": False, "internal": f"{type(exc).__name__}: {exc}"[:1000]}
        result.setdefault("seconds", time.perf_counter() - started)
        results.append(result)
    return results
