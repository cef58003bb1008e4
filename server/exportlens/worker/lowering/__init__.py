"""After a clean export: will the program lower to where it ships? (issue 17, docs/targets.md)

One module per target (`core_aten.py`, `onnx.py`, `aoti.py`), each with
`check(program, attempt, path, budget) -> LoweringResult`; a module that quantizes (`QUANTIZES`,
executorch.py) also gets the job's `quantize` ("none", "xnnpack": quantize.py).  The child runs
the job's targets in the order asked, after the export and its summary; a target that raises is
reported as its own internal failure, never as the export's.  Stdlib at import time: each module
imports what its target needs (onnxscript, onnxruntime, inductor) only when that target runs.
"""

from __future__ import annotations

import importlib
import time
from typing import Any

from ..core.budget import Budget, OutOfBudget
from ..wire.protocol import TARGET_OUT_OF_TIME
from ..wire.records import LoweringResult
from ..wire.targets import TARGETS

# The target -> the module that checks it (wire/targets.py).  `export` is the export itself.
MODULES = {t.name: t.module for t in TARGETS if t.module is not None}
EXPORT_ITSELF = frozenset(t.name for t in TARGETS if t.module is None)


def lower(
    targets: list[str], program: Any, attempt: Any, path: str, budget: Budget, quantize: str = "none"
) -> list[LoweringResult]:
    results: list[LoweringResult] = []
    for target in targets:
        if target in EXPORT_ITSELF:
            continue
        started = time.perf_counter()
        try:
            if target not in MODULES:  # the server asked for a target this worker does not know
                raise LookupError(f"no lowering named {target!r}; known: {', '.join(MODULES)}")
            module = importlib.import_module(MODULES[target], __package__)
            extra = {"quantize": quantize} if getattr(module, "QUANTIZES", False) else {}
            result: LoweringResult = module.check(program, attempt, path, budget, **extra)
        except OutOfBudget:
            result = {"target": target, "ok": False, "skipped": TARGET_OUT_OF_TIME}
        except BaseException as exc:  # noqa: BLE001 - a lowering's own bug is not the model's failure
            result = {"target": target, "ok": False, "internal": f"{type(exc).__name__}: {exc}"[:1000]}
        result.setdefault("seconds", time.perf_counter() - started)
        results.append(result)
    return results
