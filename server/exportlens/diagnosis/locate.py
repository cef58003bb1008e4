"""Frames -> places in the workspace: the culprit range and the chain back to the export.

Frames under torch, site-packages, the standard library or ExportLens itself
are dropped; the finding lands on the innermost workspace frame, which may be
in another file than the one checked (a helper), with the outer frames as
related locations.  Columns from CPython/torch are UTF-8 bytes.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from ..discovery import discovery_of
from ..document import Document
from ..findings import Range, Related
from ..reading import read_document
from ..textpos import SourceText, utf16_len
from ..worker.wire.export_call import export_argument
from ..worker.wire.records import FailureRecord, Frame
from . import columns
from .context import DiagnosisContext

_PACKAGE = str(Path(__file__).resolve().parent.parent) + "/"
_LIBRARY = re.compile(r"/(site-packages|dist-packages)/|/lib/python\d\.\d+/|/torch/")
# "File "/path.py", line 21, in forward" as torch prints user stacks in messages.
_TEXT_FRAME = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<name>[^\s]+)')


# Third-party library code (transformers, timm, x-transformers ...), not torch itself.
_THIRD_PARTY = re.compile(r"/(site-packages|dist-packages)/(?!(torch|functorch|torchgen)/)")
# torch's own layers, where a refusal inside `nn.TransformerEncoder` & co. happens.
_TORCH_LAYERS = re.compile(r"/torch/nn/(modules/\w+\.py|functional\.py)$")
# What torch itself calls into: never the library that refused.
_TORCH_DEPENDENCY = re.compile(
    r"/(site-packages|dist-packages)/(sympy|mpmath|networkx|optree|jinja2|fsspec|filelock|typing_extensions)"
)

_CONDITION = re.compile(r"^(if|elif|while|assert)\s+(.+?)\s*:?\s*$")


@dataclass(frozen=True)
class Place:
    path: str
    range: Range
    name: str  # function name of the frame


def is_workspace(path: str, ctx: DiagnosisContext) -> bool:
    if path == ctx.path:
        return True
    if not path or path.startswith("<") or path.startswith(_PACKAGE) or _LIBRARY.search(path):
        return False
    return any(path.startswith(root.rstrip("/") + "/") for root in ctx.roots)


def workspace_frames(frames: list[Frame], ctx: DiagnosisContext) -> list[Frame]:
    return [f for f in frames if is_workspace(str(f.get("path", "")), ctx) and f.get("line")]


def user_frames(record: FailureRecord, ctx: DiagnosisContext) -> list[Frame]:
    """Workspace frames, outermost first: dynamo's real stack, else the traceback, else the text."""
    for stack in _stacks(record):
        found = workspace_frames(stack, ctx)
        if found:
            innermost = found[-1]
            if innermost.get("col") is None:  # torch 2.10's dynamo stacks: lines only
                inner = stack[next(i for i, f in enumerate(stack) if f is innermost) + 1 :]
                path = str(innermost["path"])
                doc = ctx.document if path == ctx.path else _document(path)
                found[-1] = columns.fill(innermost, doc, columns.callees(record, inner))
            return found
    for chained in record.get("chain") or []:
        found = workspace_frames(list(chained.get("frames") or []), ctx)
        if found:
            return found
    return text_frames(str(record.get("message", "")), ctx)


def _stacks(record: FailureRecord) -> list[list[Frame]]:
    """Dynamo's real stack, then the traceback (each a copy, [] when missing)."""
    return [list(record.get("real_stack") or []), list(record.get("frames") or [])]


def library_frame(frames: list[Frame], ctx: DiagnosisContext) -> Frame | None:
    """The innermost library frame inside the user's code, if any.

    An installed library (transformers, einops, ...) first, else torch's own
    layer code (`torch/nn/modules/transformer.py`, `torch/nn/functional.py`),
    never torch's internals or what torch calls (sympy ...).  None when the
    innermost interesting frame is the user's own (a library that merely calls
    the user's module is not the one that refused).
    """
    for accept in (is_third_party, _is_torch_layer_code):
        for frame in reversed(frames):
            path = str(frame.get("path", ""))
            if not frame.get("line"):
                continue
            if is_workspace(path, ctx):
                break
            if accept(path):
                return frame.copy()
    return None


def _is_torch_layer_code(path: str) -> bool:
    return bool(_TORCH_LAYERS.search(path)) and not path.endswith("/torch/nn/modules/module.py")


def is_third_party(path: str) -> bool:
    """Installed library code that is neither torch nor one of torch's own dependencies."""
    if path.startswith(_PACKAGE) or _TORCH_DEPENDENCY.search(path):
        return False
    return bool(_THIRD_PARTY.search(path))


def record_library_frame(record: FailureRecord, ctx: DiagnosisContext) -> Frame | None:
    """Where library code refused: dynamo's real stack, else the traceback, else a chained one."""
    for frames in _stacks(record):
        if any(is_third_party(str(f.get("path", ""))) for f in frames):
            return library_frame(frames, ctx)
    for frames in _stacks(record):
        found = library_frame(frames, ctx)
        if found:
            return found
    for inner in record.get("chain") or []:
        found = library_frame(list(inner.get("frames") or []), ctx)
        if found:
            return found
    return None


def short_path(path: str) -> str:
    """`transformers/models/bert/modeling_bert.py` for a site-packages path."""
    match = re.search(r"/(?:site-packages|dist-packages)/(.+)$", path) or re.search(r"/(torch/nn/.+)$", path)
    return match.group(1) if match else path


def text_frames(message: str, ctx: DiagnosisContext) -> list[Frame]:
    """Frames printed in the message ("User stack:", "from user code:"), no columns."""
    found: list[Frame] = [
        {"path": m["path"], "line": int(m["line"]), "name": m["name"]} for m in _TEXT_FRAME.finditer(message)
    ]
    return workspace_frames(found, ctx)


def _document(path: str) -> Document | None:
    """Another workspace file a frame points into, parsed once per text (reading.py)."""
    try:
        return read_document(path)
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None


class Sources:
    """Text of the checked buffer and, read from disk once, of other workspace files."""

    def __init__(self, ctx: DiagnosisContext) -> None:
        self.texts: dict[str, SourceText] = {ctx.path: ctx.document.source_text}

    def get(self, path: str) -> SourceText:
        if path not in self.texts:
            try:
                self.texts[path] = SourceText(Path(path).read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                self.texts[path] = SourceText("")
        return self.texts[path]

    def place(self, frame: Frame) -> Place:
        path = str(frame["path"])
        text = self.get(path)
        line = int(frame["line"] or 0) - 1
        col, end_col = frame.get("col"), frame.get("end_col")
        end_line = frame.get("end_line")
        if col is None or end_col is None or (end_line is not None and int(end_line) - 1 != line):
            span = text.span(line, col, None, None) if col is not None else text.line_range(line)
        else:
            span = text.span(line, int(col), line, int(end_col))
        return Place(path, span, str(frame.get("name", "")))

    def snippet(self, place: Place) -> str:
        """The culprit expression's text (single line)."""
        line = self.get(place.path).line(place.range.start.line)
        units = line.encode("utf-16-le")
        start, end = place.range.start.character, place.range.end.character
        if place.range.end.line != place.range.start.line:
            end = len(units) // 2
        return units[start * 2 : end * 2].decode("utf-16-le", errors="ignore").strip()

    def condition(self, place: Place) -> Place:
        """`if cond:` / `while cond:` spans (CPython's position of the jump) -> just `cond`."""
        snippet = self.snippet(place)
        match = _CONDITION.match(snippet)
        if not match or place.range.start.line != place.range.end.line:
            return place
        start = place.range.start.character + utf16_len(snippet[: match.start(2)])
        end = start + utf16_len(match.group(2))
        return Place(
            place.path, Range.of(place.range.start.line, start, place.range.start.line, end), place.name
        )

    def statement(self, place: Place) -> str:
        return self.get(place.path).line(place.range.start.line).strip()


def related_chain(places: list[Place], culprit: Place, ctx: DiagnosisContext) -> list[Related]:
    """The export call / module first, then each outer frame down to the culprit."""
    related = []
    if not (culprit.path == ctx.path and culprit.range == ctx.anchor):
        related.append(Related(ctx.path, ctx.anchor, f"{ctx.label} is checked from here"))
    for place in places:
        if place == culprit:
            continue
        related.append(Related(place.path, place.range, f"called from `{place.name}`"))
    return related


def export_call_place(ctx: DiagnosisContext, part: str) -> Place | None:
    """In the module's export call: `part` = "dynamic_shapes" | "args" | "call" (its first line).

    Problems with the call's own arguments belong there, not on the class.
    """
    found = discovery_of(ctx.document)
    subject = next((t for t in found.subjects if t.name == ctx.module), None)
    if subject is None or subject.inputs.get("kind") != "export-call":
        return None
    call = subject.call
    if call is None:
        return None
    node: ast.expr = call
    if part == "dynamic_shapes":
        node = export_argument(call, "dynamic_shapes") or call
    elif part == "args":
        node = export_argument(call, "args") or call
    text = ctx.document.source_text
    same_line = node.end_lineno == node.lineno
    span = text.span(
        node.lineno - 1,
        node.col_offset,
        node.lineno - 1 if same_line else None,
        node.end_col_offset if same_line else None,
    )
    return Place(ctx.path, span, "<module>")
