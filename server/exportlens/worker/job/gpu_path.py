"""The second look: the path a machine with a GPU takes, when the script asks and this one has none.

Under the "fake" policy the user's `torch.cuda.is_available()` & co. get this machine's answer
(devices.py), so the check follows the path the script really takes here. When that answer was
"no" and the module exported, what only a GPU machine would do is looked at once more: the file
is loaded again (with the workspace modules it imported, whose top level may pick the device too)
with those questions answered "yes", so what the code puts on the GPU is fake on it, and the
export runs again. Its refusal is reported by the server as a warning that says so
(diagnosis/gpu_path.py), never as the module's error: the script exports where it runs.

In the child, after the first export; bounded by the job's budget. A GPU path that puts nothing
on a device is the same export: not run again.
"""

from __future__ import annotations

import os
import re
import sys
import time
from typing import Any

import torch

from ..core.budget import Budget, OutOfBudget
from ..wire import protocol
from ..wire.records import AskedDevice, FailureRecord, Frame, GpuPath
from ..wire.records import Stage as StageName

SHARE = 0.5  # of the time left: what comes after it (the parts' recording, lowerings) keeps the rest


def second_look(job: protocol.JobMessage, strict: bool, budget: Budget, asked: list[AskedDevice]) -> GpuPath:
    from ..capture.failure import describe_failure
    from ..core.attempt import Attempt
    from .compiled import without_compile
    from .devices import Placement, building, exporting, finish
    from .loader import load_module, parse
    from .sizing import build_sized

    found: GpuPath = {"asked": asked, "status": "not-checked"}
    started = time.perf_counter()
    placement = Placement("fake", gpu_path=True)
    stage: StageName = "import"
    attempt: Attempt | None = None
    try:
        with budget.bounded(share=SHARE):
            forget_workspace_modules(job)
            tree = parse(job["path"], job["source"])
            with building(placement), without_compile():
                user_module = load_module(
                    job["path"], job["source"], tree, job["module_name"], job["sys_path"], job["load_until"]
                )
                stage = "inputs"
                spec = job["target"]["inputs"]
                attempt = build_sized(spec, user_module, job["path"], tree, job["meta_above_mb"], placement)
                attempt.args, attempt.kwargs = finish(attempt.module, attempt.args, attempt.kwargs, placement)
            if not placement.devices:
                found["status"] = "same"
            else:
                stage = "export"
                with exporting(placement):
                    program = attempt.export(strict)
                mixed = mixed_devices(program, strict)
                found["status"] = "failed" if mixed else "exported"
                if mixed:
                    record, op = mixed
                    record["placement"] = placement.describe()
                    found["failure"], found["unchecked_op"] = record, op
    except OutOfBudget:
        found["reason"] = "out of time"
    except BaseException as exc:  # noqa: BLE001 - the first export's result stands whatever happens here
        if stage == "export" and not isinstance(exc, (SystemExit, KeyboardInterrupt, MemoryError)):
            record = describe_failure(exc, stage, attempt, strict, job["path"])
            record["placement"] = placement.describe()
            found["status"], found["failure"] = "failed", record
        else:
            found["reason"] = f"{stage}: {type(exc).__name__}: {exc}"[:500]
    found["seconds"] = time.perf_counter() - started
    return found


# Ops that take tensors on two devices by design: a copy between them, CPU indices into a GPU tensor.
_MIXED_BY_DESIGN = re.compile(r"copy|_to_|\.to\.|index|lift|_assert|sym_")
_FRAME = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<name>\S+)')


def mixed_devices(program: Any, strict: bool) -> tuple[FailureRecord, str] | None:
    """The first op of an exported program whose tensors are on two devices (`cpu` images into a
    convolution on `cuda:0`), and the op: some ops' fake kernels do not check devices, so torch
    exports what the device itself refuses. Said as torch says it where it checks (device-mismatch)."""
    for node in program.graph_module.graph.nodes:
        if node.op != "call_function" or _MIXED_BY_DESIGN.search(str(node.target)):
            continue
        devices = sorted(
            {
                str(value.device)
                for arg in node.all_input_nodes
                if isinstance(value := arg.meta.get("val"), torch.Tensor) and value.dim() > 0
            }
        )
        if len(devices) < 2:
            continue
        accelerator = next(d for d in devices if d != "cpu") if "cpu" in devices else devices[0]
        other = "cpu" if "cpu" in devices else devices[1]
        frames: list[Frame] = [
            {"path": m["path"], "line": int(m["line"]), "name": m["name"]}
            for m in _FRAME.finditer(node.meta.get("stack_trace") or "")
        ]
        message = (
            f"Expected all tensors to be on the same device, but found at least two devices, {accelerator}"
            f" and {other}!"
        )
        record: FailureRecord = {
            "stage": "export",
            "strict": strict,
            "exc_type": "RuntimeError",
            "message": message,
            "frames": frames,
        }
        return record, str(node.target)
    return None


def forget_workspace_modules(job: protocol.JobMessage) -> None:
    """Drop the checked file's module and the workspace modules it imported from sys.modules, so
    loading it again runs their top level again (`device = "cuda" if ... else "cpu"` in `utils.py`).
    Installed packages, the standard library and extension modules stay: they cannot be loaded twice
    safely, and a library's probe does not choose the user's path (devices.Placement.asked_no)."""
    roots = tuple(os.path.join(os.path.realpath(entry), "") for entry in job["sys_path"])
    # The interpreter's own files, and ExportLens's (a workspace may hold its checkout).
    ours = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    kept = tuple(
        os.path.join(os.path.realpath(prefix), "")
        for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, ours}
    )
    for name, module in list(sys.modules.items()):
        path = _file_of(module)
        if name == job["module_name"] or (
            path.endswith(".py")
            and path.startswith(roots)
            and not path.startswith(kept)
            and "/site-packages/" not in path
            and "/dist-packages/" not in path
        ):
            del sys.modules[name]


def _file_of(module: Any) -> str:
    path = getattr(module, "__file__", None)
    return os.path.realpath(path) if isinstance(path, str) else ""
