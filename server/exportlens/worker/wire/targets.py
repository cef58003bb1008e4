"""Where a program goes after `torch.export`: one record per lowering target (docs/targets.md).

The one declaration both processes read: the server's setting `exportlens.targets`, the CLI's
`--target`, the job's `targets`, the message labels and the docs' table take the names here; the
worker's `lowering/` table takes the module.  A new target is one record here plus its module in
`worker/lowering/` (and its codes in `codes/lowerings.py`).  Stdlib only: the worker loads it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Target:
    name: str  # the word users and the wire see: `exportlens.targets`, `--target`, a result's `target`
    label: str  # how a message names it: "ONNX: no translation for ..."
    # Its module in worker/lowering/, `check(program, attempt, path, budget)`; None: the export itself.
    module: str | None
    # Too costly for every check (a C++ compile): its command or the CLI's --target only.
    on_demand: bool = False
    # Its own job time limit in seconds; None: the check's.
    timeout: float | None = None
    needs: tuple[str, ...] = ()  # the packages it imports besides torch (docs/targets.md's "needs")


TARGETS: tuple[Target, ...] = (
    Target("export", "torch.export", None),
    Target("core-aten", "Core ATen", ".core_aten"),
    Target("onnx", "ONNX", ".onnx", needs=("onnx", "onnxscript")),
    Target("aoti", "AOTInductor", ".aoti", on_demand=True, timeout=600.0),
    Target("executorch", "ExecuTorch", ".executorch", needs=("executorch",)),
    Target("coreml", "Core ML", ".coreml", needs=("coremltools",)),
)
BY_NAME: dict[str, Target] = {t.name: t for t in TARGETS}
