"""Each graph break of a compile check, in torch's own words (in the child; worker/job/compiled.py).

What dynamo logs for a break (`InstructionTranslatorBase.log_graph_break`, given the `Unsupported`
it raised: its type, explanation, hints, link and the user's stack) is kept while the module's first
call compiles. A torch without that method (its graph breaks logged another way) gets
`torch._dynamo.explain` instead: one more trace, the reason's text and the user stack it keeps. What
the message lacks (torch 2.10's texts) is read from the registry torch ships.
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Callable
from typing import Any, cast

from ..wire.compile_records import GraphBreak
from ..wire.records import Frame
from .graph_breaks import entries, graph_break, id_of


def listening() -> bool:
    """Whether this torch logs each break through the method `breaks_told` listens to."""
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslatorBase
    except ImportError:
        return False
    return callable(getattr(InstructionTranslatorBase, "log_graph_break", None))


def explained(attempt: Any) -> list[GraphBreak]:
    """The breaks as `torch._dynamo.explain` lists them (a torch `breaks_told` cannot listen to)."""
    import torch

    torch._dynamo.reset()
    explanation = torch._dynamo.explain(attempt.module)(*attempt.args, **(attempt.kwargs or {}))
    found: list[GraphBreak] = []
    seen: set[tuple[str, int]] = set()
    for reason in explanation.break_reasons:
        frames = _frames(list(getattr(reason, "user_stack", None) or []))
        site: tuple[str, int] = (frames[-1]["path"], frames[-1]["line"] or 0) if frames else ("", 0)
        if site not in seen:
            seen.add(site)
            text = str(getattr(reason, "reason", ""))
            if text.startswith("generic_jump"):  # explain's words for a data-dependent jump
                text = "Data-dependent branching\n" + text
            found.append(_described(_Reason(text), frames))
    return found


class _Reason(Exception):
    """A reason's text as the exception `graph_break` reads the type and id from."""


def breaks(told: list[BaseException]) -> list[GraphBreak]:
    """Each break once, by its innermost user line, in the order dynamo met them."""
    found: list[GraphBreak] = []
    seen: set[tuple[str, int]] = set()
    for exc in told:
        frames = _frames(list(getattr(exc, "real_stack", None) or []))
        site: tuple[str, int] = (frames[-1]["path"], frames[-1]["line"] or 0) if frames else ("", 0)
        if site not in seen:
            seen.add(site)
            found.append(_described(exc, frames))
    return found


def _described(exc: BaseException, frames: list[Frame]) -> GraphBreak:
    """torch's words for the break: its message's, else its registry entry's (torch 2.10's texts)."""
    message = str(exc)
    gb_type, gb_id = graph_break(exc, message)
    first = message.splitlines()[0].strip() if message else ""
    if gb_type is None and gb_id is None and (known_id := id_of(first)):  # a text that starts with its type
        gb_type, gb_id = first, known_id
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
    """The registry's entry of this break in torch's plain words: no `{placeholder}`, no source code
    (an explanation built at run time is listed as its expression), the most hints."""
    plain = [
        entry
        for entry in entries().get(gb_id or "", [])
        if entry.get("Gb_type") == gb_type and _plain(str(entry.get("Explanation", "")))
    ]
    return max(plain, key=lambda entry: len(entry.get("Hints") or []), default=None)


def _plain(text: str) -> bool:
    return bool(text) and "{" not in text and not text.startswith(('"', "_")) and '" +' not in text


class breaks_told:
    """Keep each exception dynamo logs as a graph break (its full text, type and user stack)."""

    def __init__(self, told: list[BaseException]) -> None:
        self.told = told
        self.owner: Any = None
        self.original: Callable[..., Any] | None = None

    def __enter__(self) -> None:
        from torch._dynamo.symbolic_convert import InstructionTranslatorBase

        original = InstructionTranslatorBase.log_graph_break
        told = self.told

        def log_graph_break(translator: Any, *args: Any, **kwargs: Any) -> Any:
            told.append(_logged(args, kwargs))
            return original(translator, *args, **kwargs)

        self.owner, self.original = InstructionTranslatorBase, original
        setattr(InstructionTranslatorBase, "log_graph_break", log_graph_break)  # noqa: B010 - a method

    def __exit__(self, *exc: object) -> None:
        if self.owner is not None:
            self.owner.log_graph_break = self.original


def _logged(args: tuple[Any, ...], kwargs: dict[str, Any]) -> BaseException:
    """The break `log_graph_break` was told of: its exception (2.13+: `exc=`), else its text and stack
    (2.10: `reason=`, `user_stack=`), as an exception carrying torch's `real_stack`."""
    exc: Any = kwargs.get("exc")
    if exc is None:
        exc = _Reason(str(kwargs.get("reason", args[1] if len(args) > 1 else "")))
        exc.real_stack = kwargs.get("user_stack")
    if getattr(exc, "real_stack", None) is None:  # as torch does: the stack being traced
        exc.real_stack = _tracing_stack()
    return cast(BaseException, exc)


def _tracing_stack() -> Any:
    import torch

    try:
        return torch._guards.TracingContext.extract_stack()
    except Exception:  # noqa: BLE001 - no stack: the finding goes on the module
        return []


def _frames(stack: list[traceback.FrameSummary]) -> list[Frame]:
    frames: list[Frame] = []
    for summary in stack:
        frame: Frame = {"path": summary.filename, "line": summary.lineno or 0, "name": summary.name}
        frames.append(frame)
    return frames
