"""Prove a quick-fix in the child before it is offered: export the patched buffer, compare with eager.

job["source"] is the buffer with the fix applied; job["verify"] (a protocol.VerifySpec) says how to judge it:
- "compare": "original" — the exported program must match the *unpatched* module in eager mode
  (a rewrite must not change behaviour); "self" — match the patched module in eager (`.eval()`,
  Dim edits: the fix changes what is exported on purpose).
- "buffer": a name the exported program must update (a registered-buffer fix);
- "decode": the prefill and first decode step must give eager generation's logits (decode_proof.py);
- "original": {"source", "target", "load_until"} of the unpatched buffer (for "original").
- "branch_line": 1-based first line of the `if`'s true branch in the original: the eager run is
  line-traced to see which branch each input takes, and inputs are varied (negated, zeroed,
  shifted, flipped) until both branches were compared.
Answer: {"status", "verify": {"exports", "matches", "branches_checked", "reason"}} (protocol.VerifyVerdict).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import torch

from ..wire.protocol import JobAnswer, JobMessage, ProvenElsewhere, VerifySpec, VerifyVerdict
from .compiled import without_compile
from .devices import Placement, building, exporting, finish
from .inputs import build
from .loader import load_module, parse
from .same_values import same_values
from .sizing import build_sized

Variant = Callable[[torch.Tensor], torch.Tensor]
VARIANTS: list[tuple[str, Variant]] = [
    ("as given", lambda t: t),
    ("negated", lambda t: -t),
    ("zeros", torch.zeros_like),
    ("all negative", lambda t: -(t.abs() + 1)),
    ("all positive", lambda t: t.abs() + 1),
    ("flipped", lambda t: t.flip(0) if t.dim() else t),
    ("ones", torch.ones_like),
]


def verify(job: JobMessage, spec: VerifySpec) -> JobAnswer:
    path = job["path"]
    result: VerifyVerdict = {"exports": False, "matches": None, "branches_checked": 0, "reason": ""}
    strict = bool(job["strict"])
    torch.manual_seed(0)
    tree = parse(path, job["source"])
    placement = Placement(job.get("device") or "fake")
    with building(placement), without_compile():
        if (imported := spec.get("elsewhere")) is not None:
            _load_imported(imported, imported["source"], job["sys_path"])
        patched = load_module(
            path, job["source"], tree, job["module_name"], job["sys_path"], job["load_until"]
        )
        attempt = build_sized(job["target"]["inputs"], patched, path, tree, job["meta_above_mb"], placement)
        attempt.args, attempt.kwargs = finish(attempt.module, attempt.args, attempt.kwargs, placement)
    if attempt.meta and not placement.fake:
        torch.set_default_device("meta")  # too big to allocate: prove that it exports, compare nothing
    if job["strict"] is None and attempt.strict is not None:
        strict = attempt.strict
    if (compiled := spec.get("compile")) is not None:
        return _compiled_verdict(job, spec, compiled["lines"], attempt, placement, result)
    try:
        try:
            with exporting(placement):
                program = attempt.export(strict)
        except Exception as exc:
            if not (spec.get("refine") and "Suggested fixes:" in str(exc)):
                raise
            # "make this dim dynamic": let torch narrow the new Dims, then prove the narrowed spec.
            shapes = refine(str(exc), attempt.dynamic_shapes)
            with exporting(placement):
                program = attempt.export(strict, shapes)
            result["refined"] = describe(shapes)
    except Exception as exc:  # noqa: BLE001 - the verdict is the answer
        result["reason"] = _first_line(exc)
        return {"status": "failed", "strict": strict, "verify": result}
    result["exports"] = True
    buffer = spec.get("buffer")
    if buffer and buffer not in program.graph_signature.buffers_to_mutate.values():
        result["matches"] = False  # exporting is not enough: the update must be in the program
        result["reason"] = f"the exported program still does not update `self.{buffer}` (torch drops it)"
        return {"status": "exported", "strict": strict, "verify": result}
    if attempt.meta:
        result["reason"] = "built with meta weights (too big to run): not compared with eager"
        return {"status": "exported", "strict": strict, "verify": result}
    if placement.fake:  # fake tensors on the GPU the code targets: nothing to run eagerly
        devices = ", ".join(sorted(placement.devices))
        result["reason"] = (
            f"not proven on this machine: built for {devices} as fake tensors, not compared with eager"
        )
        return {"status": "exported", "strict": strict, "verify": result}
    reference = _reference(job, spec, attempt)
    where = spec["elsewhere"]["path"] if "elsewhere" in spec else path  # the file the fix is in
    compare(program.module(), reference, attempt.args, attempt.kwargs, where, spec, result)
    if spec.get("decode") and result["matches"]:
        from .decode_proof import decode_matches

        decode_matches(program, attempt, result)
    return {"status": "exported", "strict": strict, "verify": result}


def _compiled_verdict(
    job: JobMessage,
    spec: VerifySpec,
    lines: list[int],
    attempt: Any,
    placement: Placement,
    result: VerifyVerdict,
) -> JobAnswer:
    """A graph break's fix: the candidate compiled (worker/job/compiled.py) breaks no graph on `lines`
    and matches eager mode of the original. "exports" says the first."""
    from .compiled import compiled_without_break

    how = job.get("compile") or {"fullgraph": False, "dynamic": None}
    where = spec["elsewhere"]["path"] if "elsewhere" in spec else job["path"]  # the file the fix is in
    try:
        proof = spec.get("compile")
        compiled = compiled_without_break(attempt, how, lines, where, proof.get("site") if proof else None)
    except Exception as exc:  # noqa: BLE001 - the verdict is the answer
        result["reason"] = _first_line(exc)
        return {"status": "failed", "strict": True, "verify": result}
    result["exports"] = True
    if placement.fake:
        result["reason"] = "not compared with eager: built as fake tensors for a GPU"
        return {"status": "exported", "strict": True, "verify": result}
    compare(compiled, _reference(job, spec, attempt), attempt.args, attempt.kwargs, where, spec, result)
    return {"status": "exported", "strict": True, "verify": result}


def _reference(job: JobMessage, spec: VerifySpec, attempt: Any) -> Any:
    """The eager module the fix is compared with: the unpatched one for "original"."""
    if spec["compare"] != "original":
        return attempt.module
    path, original = job["path"], spec["original"]
    torch.manual_seed(0)
    name = job["module_name"] + "__exportlens_original"
    tree = parse(path, original["source"])
    with without_compile():
        if (imported := spec.get("elsewhere")) is not None:
            _load_imported(imported, imported["original"], job["sys_path"])
        loaded = load_module(path, original["source"], tree, name, [], original["load_until"])
        reference = build(original["target"]["inputs"], loaded, path, tree).module
    if isinstance(reference, torch.nn.Module) and isinstance(attempt.module, torch.nn.Module):
        reference.load_state_dict(attempt.module.state_dict(), strict=False)
    return reference


def _load_imported(imported: ProvenElsewhere, source: str, search_path: list[str]) -> None:
    """`source` as the module the job's file imports (its own import then finds it loaded). The
    workspace's modules loaded before are dropped: one that imports it (`model.py` importing the
    fixed `blocks.py`) is imported again with this version."""
    folders = tuple(str(Path(f).resolve()) + os.sep for f in search_path)
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None) or ""
        if file.startswith(folders) and not any(d in file for d in ("site-packages", "dist-packages")):
            del sys.modules[name]
    sys.modules.pop(imported["module_name"], None)
    path = imported["path"]
    load_module(path, source, parse(path, source), imported["module_name"], search_path, None)


def refine(message: str, shapes: Any) -> Any:
    """torch's own reading of its "Suggested fixes:" block, applied to `shapes`."""
    from torch.export.dynamic_shapes import refine_dynamic_shapes_from_suggested_fixes

    block = message.partition("Suggested fixes:")[2].strip("\n").split("\n\n")[0]
    fixes = [ln.strip() for ln in block.splitlines() if " = " in ln]
    return refine_dynamic_shapes_from_suggested_fixes("Suggested fixes:\n" + "\n".join(fixes), shapes)


def _bound(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and abs(value) < 2**62 else None


def describe(shapes: Any) -> Any:
    """Dims as {"name", "min", "max"} (JSON), static sizes as ints."""
    if isinstance(shapes, dict):
        return {str(k): describe(v) for k, v in shapes.items()}
    if isinstance(shapes, (list, tuple)):
        return [describe(v) for v in shapes]
    if shapes is None or isinstance(shapes, int):
        return shapes
    low, high = getattr(shapes, "min", None), getattr(shapes, "max", None)
    return {"name": str(getattr(shapes, "__name__", shapes)), "min": _bound(low), "max": _bound(high)}


def compare(
    exported: Any,
    eager: Any,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    path: str,
    spec: VerifySpec,
    result: VerifyVerdict,
) -> None:
    """Run both on the example (and, for branches, on varied inputs until both branches ran)."""
    line = spec.get("branch_line")
    seen: set[bool] = set()
    checked = 0
    for label, change in VARIANTS if line else VARIANTS[:1]:
        try:
            new_args, new_kwargs = _map(args, change), _map(kwargs, change)
        except Exception:  # noqa: BLE001, S112 - a variant that cannot be built is skipped
            continue
        with torch.no_grad():
            try:
                torch.manual_seed(0)  # dropout & co. draw the same numbers in both runs
                lines = _traced(path, _call(eager, new_args, new_kwargs))
                want = lines[0]
            except Exception:  # noqa: BLE001, S112 - eager refuses this input: not a test case
                continue
            branch = (line in lines[1]) == spec.get("branch_polarity", True) if line else True
            if line and branch in seen:
                continue
            try:
                torch.manual_seed(0)
                got = exported(*new_args, **new_kwargs)
            except Exception as exc:  # noqa: BLE001
                result["matches"] = False
                result["reason"] = f"the exported program fails on the {label} input: {_first_line(exc)}"
                return
        if not same_values(got, want):
            result["matches"] = False
            which = f" ({'true' if branch else 'false'} branch)" if line else ""
            result["reason"] = f"the exported program differs from eager on the {label} input{which}"
            return
        seen.add(branch)
        checked += 1
        if len(seen) == 2:
            break
    result["matches"] = checked > 0
    result["branches_checked"] = len(seen) if line else 0
    if not checked:
        result["reason"] = "eager mode failed on every input tried"


def _call(fn: Any, args: Any, kwargs: Any) -> Callable[[], Any]:
    return lambda: fn(*args, **kwargs)


def _traced(path: str, run: Callable[[], Any]) -> tuple[Any, set[int]]:
    """Run `run`, recording the lines of `path` it executes (which branch ran)."""
    lines: set[int] = set()

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            lines.add(frame.f_lineno)
        return local

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename == path else None

    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        value = run()
    finally:
        sys.settrace(old)
    return value, lines


def _map(value: Any, change: Variant) -> Any:
    if isinstance(value, torch.Tensor):
        return (
            change(value)
            if value.is_floating_point() or change is VARIANTS[0][1]
            else _int_change(value, change)
        )
    if isinstance(value, (list, tuple)):
        return type(value)(_map(v, change) for v in value)
    if isinstance(value, dict):
        return {k: _map(v, change) for k, v in value.items()}
    return value


def _int_change(value: torch.Tensor, change: Variant) -> torch.Tensor:
    if value.dtype == torch.bool:
        return change(value.float()) > 0
    return change(value.to(torch.float64)).to(value.dtype)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]
