"""A compile check in the child: the graph breaks and recompiles `torch.compile` would meet.

Loading the user's file never compiles (`without_compile`): `torch.compile(model)` gives back the
model itself, `model.compile()` does nothing, `@torch.compile` leaves the function as it is, so a
script that compiles and calls its model at the top level costs what its eager code costs, never an
Inductor build. The check then runs dynamo as torch.compile does, with backends that compile
nothing: `torch._dynamo.explain` for the graphs and each break's user stack, torch's own text of
each break (its type, explanation, hints and link: what `log_graph_break` is given, else the
reason explain keeps), then the recompile pass: the module called again with the batch dim changed
twice, as a user's next batches would. The first change recompiles with the dim dynamic (torch's
automatic dynamic shapes); a recompile at the second says the code specialises on the size, and
where (the shape guard the dynamic compile added that pins the size) is read from the shape env.
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Callable
from typing import Any

from .budget import Budget, OutOfBudget
from .compile_records import CompileReport, GraphBreak, Recompile
from .graph_breaks import entries, graph_break
from .protocol import CompileSpec
from .records import Frame

_REAL: dict[str, Any] = {}  # torch.compile as torch defines it: the recompile pass calls it
_USER_LOC = re.compile(r"#\s*(?P<path>\S.*?):(?P<line>\d+) in (?P<name>[\w<>]+)\s*$")


def without_compile() -> None:
    """From now on in this child, `torch.compile` and `Module.compile` build nothing."""
    import torch

    if "compile" in _REAL:
        return
    _REAL["compile"] = torch.compile

    def compile_nothing(model: Any = None, **_options: Any) -> Any:
        if model is None:  # `@torch.compile(...)`: a decorator that leaves the function alone
            return lambda fn: fn
        return model

    def module_compile(self: Any, *_args: Any, **_kwargs: Any) -> None:
        return None

    torch.compile = compile_nothing  # type: ignore[assignment]
    torch.nn.Module.compile = module_compile  # type: ignore[method-assign]


def compile_check(attempt: Any, spec: CompileSpec, budget: Budget) -> CompileReport:
    import torch

    texts: dict[tuple[str, int], BaseException] = {}
    with budget.bounded(0.6), _breaks_told(texts):
        explanation = torch._dynamo.explain(attempt.module)(*attempt.args, **(attempt.kwargs or {}))
    report: CompileReport = {
        "fullgraph": spec["fullgraph"],
        "graphs": int(explanation.graph_count),
        "breaks": [],
        "recompiles": [],
    }
    seen: set[tuple[str, int]] = set()
    for reason in explanation.break_reasons:
        frames = _frames(list(getattr(reason, "user_stack", None) or []))
        site: tuple[str, int] = (frames[-1]["path"], frames[-1]["line"] or 0) if frames else ("", 0)
        if site in seen:
            continue
        seen.add(site)
        told = texts.get(site)
        report["breaks"].append(_described(told, str(getattr(reason, "reason", "")), frames))
    torch._dynamo.reset()
    try:
        with budget.bounded():
            report["recompiles"] = _recompiles(attempt, spec)
    except OutOfBudget:
        report["recompile_error"] = "the job's time ran out"
    except Exception as exc:  # noqa: BLE001 - other sizes may not be valid inputs: nothing to say
        report["recompile_error"] = f"{type(exc).__name__}: {exc}"[:500]
    finally:
        torch._dynamo.reset()
    return report


def _described(told: BaseException | None, reason: str, frames: list[Frame]) -> GraphBreak:
    message = str(told) if told is not None else reason
    gb_type, gb_id = graph_break(told or _Reason(message), message)
    if gb_type is None and reason.startswith("generic_jump"):  # explain's own words for a jump
        gb_type, gb_id = graph_break(_Reason("Data-dependent branching"), "Data-dependent branching")
    record: GraphBreak = {"message": message[:20_000], "frames": frames}
    if gb_type:
        record["gb_type"] = gb_type
    if gb_id:
        record["gb_id"] = gb_id
    explanation = _field(message, "Explanation")
    hints = [h for h in (_field(line, "Hint") for line in message.splitlines()) if h]
    known = _registered(gb_id, gb_type)
    if not explanation and known:
        explanation = str(known.get("Explanation", ""))
    if not hints and known:
        hints = [str(h) for h in known.get("Hints", []) if "{" not in str(h)]
    if explanation and "{" not in explanation:
        record["explanation"] = explanation
    if hints:
        record["hints"] = hints
    return record


def _field(text: str, name: str) -> str:
    match = re.search(rf"^\s*{name}:\s*(.+)$", text, re.MULTILINE)
    return match.group(1).strip() if match else ""


def _registered(gb_id: str | None, gb_type: str | None) -> dict[str, Any] | None:
    """The registry's entry of this break with torch's plain words (no `{placeholder}`)."""
    for entry in entries().get(gb_id or "", []):
        if entry.get("Gb_type") == gb_type and "{" not in str(entry.get("Explanation", "{")):
            return entry
    return None


class _Reason(Exception):
    """A break's text as the exception `graph_break` reads its type and id from."""


class _breaks_told:
    """Keep the exception dynamo logs for each graph break, by its user site: torch's full text."""

    def __init__(self, texts: dict[tuple[str, int], BaseException]) -> None:
        self.texts = texts
        self.owner: Any = None
        self.original: Callable[..., Any] | None = None

    def __enter__(self) -> None:
        try:
            from torch._dynamo.symbolic_convert import InstructionTranslatorBase
        except ImportError:
            return
        original = getattr(InstructionTranslatorBase, "log_graph_break", None)
        if original is None:
            return
        texts = self.texts

        def log_graph_break(
            translator: Any, code_options: Any, reason: str = "", exc: Any = None, **kw: Any
        ) -> Any:
            stack = getattr(exc, "real_stack", None) or []
            if exc is not None and len(stack):
                texts.setdefault((stack[-1].filename, stack[-1].lineno or 0), exc)
            return original(translator, code_options, reason=reason, exc=exc, **kw)

        self.owner, self.original = InstructionTranslatorBase, original
        setattr(InstructionTranslatorBase, "log_graph_break", log_graph_break)  # noqa: B010 - a method

    def __exit__(self, *exc: object) -> None:
        if self.owner is not None:
            self.owner.log_graph_break = self.original


def _recompiles(attempt: Any, spec: CompileSpec) -> list[Recompile]:
    """Call the compiled module as a user's next batches would: the batch dim + 1, then + 2."""
    import torch
    from torch._dynamo.utils import guard_failures

    pinned: list[tuple[str, Frame | None]] = []  # (the size's source, where it was pinned)

    def backend(gm: Any, _example_inputs: Any) -> Any:
        pinned.extend(_pins())
        return gm.forward

    compiled = _REAL.get("compile", torch.compile)(attempt.module, backend=backend, dynamic=spec["dynamic"])
    batch = [int(t.shape[0]) for t in _tensors(attempt.args, attempt.kwargs)]
    if not batch:
        return []
    guard_failures.clear()
    sizes = [batch[0]]
    for grow in (0, 1, 2):
        args, kwargs = _grown(attempt.args, grow), _grown(attempt.kwargs or {}, grow)
        before = sum(len(v) for v in guard_failures.values())
        if grow == 2:
            pinned.clear()  # what the compile on the second size pinned is what fails now
        with torch.no_grad():
            compiled(*args, **kwargs)
        if grow:
            sizes.append(batch[0] + grow)
        failed = [r for v in guard_failures.values() for r in v][before:]
        if grow == 2 and failed:
            where = next((f for source, f in pinned if f is not None), None)
            return [
                {
                    "reason": str(failed[0]),
                    "dim": "shape[0]",
                    "sizes": sizes,
                    "frames": [where] if where else [],
                }
            ]
    return []


def _pins() -> list[tuple[str, Frame | None]]:
    """The input sizes this compile pinned to a constant (`Eq(s0, 3)`), with the user's line."""
    import torch

    context = torch._guards.TracingContext.try_get()
    shape_env = getattr(getattr(context, "fake_mode", None), "shape_env", None)
    if shape_env is None:
        return []
    found: list[tuple[str, Frame | None]] = []
    for guard in getattr(shape_env, "guards", []):
        expr = guard.expr
        if type(expr).__name__ != "Equality" or not any(a.is_Integer for a in expr.args):
            continue
        sources = [s.name for sym in expr.free_symbols for s in shape_env.var_to_sources.get(sym, [])]
        found.append(
            (", ".join(str(s) for s in sources), _user_frame(getattr(guard.sloc, "maybe_user_loc", None)))
        )
    return found


def _user_frame(loc: str | None) -> Frame | None:
    """`rows = ...  # path:13 in forward` (torch shortens the path): the frame, the path left to match."""
    match = _USER_LOC.search(loc or "")
    if match is None:
        return None
    return {"path": match["path"], "line": int(match["line"]), "name": match["name"]}


def _tensors(args: Any, kwargs: Any) -> list[Any]:
    import torch

    values = list(args) + list((kwargs or {}).values())
    return [v for v in values if isinstance(v, torch.Tensor) and v.dim() >= 1 and v.shape[0] >= 1]


def _grown(value: Any, extra: int) -> Any:
    """Each tensor of the inputs with `extra` more rows (copies of its first), the rest as is."""
    import torch

    if isinstance(value, torch.Tensor) and value.dim() >= 1 and value.shape[0] >= 1 and extra:
        return torch.cat([value, *([value[:1]] * extra)])
    if isinstance(value, tuple):
        return tuple(_grown(v, extra) for v in value)
    if isinstance(value, list):
        return [_grown(v, extra) for v in value]
    if isinstance(value, dict):
        return {k: _grown(v, extra) for k, v in value.items()}
    return value


def _frames(stack: list[traceback.FrameSummary]) -> list[Frame]:
    frames: list[Frame] = []
    for summary in stack:
        frame: Frame = {"path": summary.filename, "line": summary.lineno or 0, "name": summary.name}
        frames.append(frame)
    return frames
