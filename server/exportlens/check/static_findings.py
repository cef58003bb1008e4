"""Findings that need no export: what reading the document says (syntax, encoding, modules that
cannot be checked).  The same rules in every mode: trusted (run.py), untrusted (lsp/trust.py)
and the CLI."""

from __future__ import annotations

import ast
from pathlib import Path

from ..discovery import Discovery, Subject, discovery_of
from ..document import Document
from ..findings import Finding, Range
from ..textpos import SourceText, utf16_len


def read_findings(doc: Document) -> list[Finding]:
    """The syntax error, else an information finding per module nothing can check."""
    if doc.syntax_error is not None:
        return [syntax_finding(doc.path, doc.source_text, doc.syntax_error)]
    found = [no_inputs_finding(doc.path, doc.source_text, t) for t in unchecked(discovery_of(doc))]
    if doc.notebook is not None:
        from ..notebook.runs import skipped_name_findings

        found += skipped_name_findings(doc, doc.notebook)
    return found


def unchecked(found: Discovery) -> list[Subject]:
    """Modules without inputs that nothing else checks: not built into another module, and in a
    file without an export call (one with an export call says what the user exports: its other
    classes are parts)."""
    if any(t.inputs_kind == "export-call" for t in found.subjects):
        return []
    return [
        subject
        for subject in found.subjects
        if subject.inputs_kind == "none"
        and subject.part_of is None
        and not any(subject.name in other.uses for other in found.subjects)
    ]


def anchor_range(text: SourceText, subject: Subject) -> Range:
    """The class name for a class subject; the export call's first line otherwise."""
    node = subject.node
    if isinstance(node, ast.ClassDef):
        line = node.lineno - 1
        start = text.line(line).find(node.name, node.col_offset)
        start = max(start, 0)
        return Range.of(line, start, line, start + len(node.name))
    line = getattr(node, "lineno", 1) - 1
    end_line = getattr(node, "end_lineno", line + 1) - 1
    end = getattr(node, "end_col_offset", None) if end_line == line else None
    return text.span(line, getattr(node, "col_offset", None), line if end is not None else None, end)


def no_inputs_finding(path: str, text: SourceText, subject: Subject) -> Finding:
    if subject.inputs.get("why") == "training-step":
        return training_step_finding(path, text, subject)
    needs_args = subject.inputs.get("why") == "constructor"
    reason = "its constructor needs arguments" if needs_args else "it has no example inputs"
    return Finding(
        path=path,
        range=anchor_range(text, subject),
        severity="information",
        code="no-example-inputs",
        module=subject.name,
        message=(
            f"ExportLens cannot check `{subject.name}`: {reason}. Add an "
            f"`example_inputs(self)` method returning a tuple of tensors, or a "
            f'`torch.export.export({subject.name}(...), (inputs,))` call under `if __name__ == "__main__":`.'
        ),
    )


def training_step_finding(path: str, text: SourceText, subject: Subject) -> Finding:
    """A compiled function that runs `loss.backward()` / `optimizer.step()` itself: the check never
    runs a training step (it would change the user's model), so it is not compiled; on that line."""
    line = int(subject.inputs["line"]) - 1
    step = str(subject.inputs.get("step", ""))
    start = max(text.line(line).find(step.split("(")[0]), 0) if step else 0
    return Finding(
        path=path,
        range=Range.of(line, start, line, utf16_len(text.line(line))),
        severity="information",
        code="compile-not-checked",
        module=subject.name,
        mode="compile",
        message=(
            f"torch.compile: `{subject.name}` not checked: the compiled function runs a training step "
            f"(`{step}`), which ExportLens never runs. Compile the forward or the loss on its own "
            "(`torch.compile(policy)`, a loss function) to have it checked."
        ),
    )


def syntax_finding(path: str, text: SourceText, error: SyntaxError) -> Finding:
    return Finding(
        path=path,
        range=syntax_range(text, error),
        severity="error",
        code="syntax-error",
        message=f"Syntax error, nothing was exported: {error.msg}",
    )


def syntax_range(text: SourceText, error: SyntaxError) -> Range:
    """Where Python itself puts the error (ruff and `python file.py` say the same column): its
    1-based character offsets, as UTF-16; the line when it gives none."""
    line = max((error.lineno or 1) - 1, 0)
    if not error.offset:
        return text.line_range(line)
    source = text.line(line)
    start = min(max(error.offset - 1, 0), len(source))
    end_line = max((error.end_lineno or line + 1) - 1, line)
    end = (error.end_offset or 0) - 1
    if end_line == line and end <= start:  # none, or before the start ('(' was never closed: 0)
        end = min(start + 1, len(source))  # the one character there, as ruff marks it
    end_text = text.line(end_line)
    end = min(max(end, 0), len(end_text))
    return Range.of(line, utf16_len(source[:start]), end_line, utf16_len(end_text[:end]))


def encoding_finding(path: str, error: SyntaxError | UnicodeDecodeError) -> Finding:
    if isinstance(error, UnicodeDecodeError):
        line = Path(path).read_bytes()[: error.start].count(b"\n")
        why = f"byte 0x{error.object[error.start]:02x} is not valid {error.encoding}"
    else:
        line, why = max((error.lineno or 1) - 1, 0), error.msg
    if path.endswith(".ipynb"):  # no Jupyter notebook JSON (document.py): no encoding advice
        return Finding(
            path=path,
            range=Range.of(0, 0, 0, 0),
            severity="error",
            code="syntax-error",
            message=f"Cannot read this notebook, nothing was exported: {why}. Save it from Jupyter"
            " or VS Code's notebook editor (nbformat 4 JSON).",
        )
    return Finding(
        path=path,
        range=Range.of(line, 0, line, 0),
        severity="error",
        code="syntax-error",
        message=f"Cannot read this file, nothing was exported: {why}. Save it as UTF-8, or declare its "
        "encoding on the first line (`# -*- coding: latin-1 -*-`).",
    )
