"""Small fixes: `.eval()` at the export call, a registered buffer, side effects out of forward,
an export call for a module without example inputs."""

from __future__ import annotations

import ast
from typing import Any

from ..discovery import discovery_of
from ..document import Document
from ..worker.wire.export_call import export_argument
from .edits import Edit, indent_of, node_lines, reindent, span_edits
from .model import Fix, refused

_STATEMENTS = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign)


def small_fixes(doc: Document, line: int, code: str, data: dict[str, Any], module: str | None) -> list[Fix]:
    if code == "exported-in-training-mode" and data.get("kind") == "call-eval":
        return _eval(doc, code, module)
    if code == "side-effect-baked":
        return _side_effect(doc, line, code, data)
    if code == "tensor-attribute-not-buffer" and data.get("name"):
        return _buffer(doc, line, code, str(data["name"]), module)
    if code == "no-example-inputs" and module:
        return _export_call(doc, code, module)
    if code == "unflattenable-output" and data.get("class") and not data.get("library"):
        return _register_dataclass(doc, code, str(data["class"]))
    return []


def _register_dataclass(doc: Document, code: str, name: str) -> list[Fix]:
    """`torch.export.register_dataclass(Name)` after the file's own `@dataclass class Name`."""
    title = f"Register `{name}` with torch: `torch.export.register_dataclass({name})`"
    cls = next((c for c in doc.tree.body if isinstance(c, ast.ClassDef) and c.name == name), None)
    if cls is None:
        return [refused(title, code, "register-dataclass", f"`{name}` is not defined in this file")]
    decorators = {(ast.unparse(d.func if isinstance(d, ast.Call) else d)) for d in cls.decorator_list}
    if not decorators & {"dataclass", "dataclasses.dataclass"}:
        why = f"`{name}` is no `@dataclass`: register it with `torch.utils._pytree.register_pytree_node`"
        return [refused(title, code, "register-dataclass", why)]
    end = node_lines(doc.text.splitlines(keepends=True), cls)[1]
    edit = Edit(end, end, f"\n\ntorch.export.register_dataclass({name})\n")
    return [Fix(title, code, "register-dataclass", [edit])]


def export_call(doc: Document, module: str | None) -> ast.Call | None:
    """The export call whose inputs the module is checked with."""
    found = discovery_of(doc)
    subject = next((t for t in found.subjects if t.name == module), None)
    if subject is None or subject.inputs.get("kind") != "export-call":
        return None
    return subject.call


def _eval(doc: Document, code: str, module: str | None) -> list[Fix]:
    title = "Export in eval mode: `.eval()` on the module at the export call"
    call = export_call(doc, module)
    arg = export_argument(call, "mod") if call is not None else None
    if arg is None:
        return [refused(title, code, "eval", "the module is not exported by an export call in this file")]
    text = ast.get_source_segment(doc.text, arg) or ast.unparse(arg)
    if text.endswith(".eval()"):
        return []
    new = f"{text}.eval()" if isinstance(arg, (ast.Name, ast.Call, ast.Attribute)) else f"({text}).eval()"
    return [Fix(title, code, "eval", span_edits(doc, [(arg, new)]))]


def _statement(doc: Document, line: int) -> tuple[ast.stmt, list[ast.stmt]] | None:
    """The simple statement starting on 0-based `line` and the body list holding it."""
    for node in ast.walk(doc.tree):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list):
                for stmt in body:
                    if isinstance(stmt, _STATEMENTS) and stmt.lineno == line + 1:
                        return stmt, body
    return None


def _side_effect(doc: Document, line: int, code: str, data: dict[str, Any]) -> list[Fix]:
    found = _statement(doc, line)
    if found is None:
        return []
    stmt, body = found
    lines = doc.text.splitlines(keepends=True)
    first, end = node_lines(lines, stmt)
    ind = indent_of(lines[first])
    shown = ast.unparse(stmt).splitlines()[0][:60]
    fixes = []
    if data.get("kind") == "guard-not-exporting":
        block = reindent(lines[first:end], ind, ind + "    ")
        text = f"{ind}if not torch.compiler.is_exporting():\n" + "".join(block)
        fixes.append(Fix(f"Guard `{shown}` with `if not torch.compiler.is_exporting():`", code, "guard-print",
                         [Edit(first, end, text)]))  # fmt: skip
    alone = len(body) == 1
    fixes.append(
        Fix(
            f"Remove `{shown}` from forward",
            code,
            "remove",
            [Edit(first, end, f"{ind}pass\n" if alone else "")],
        )
    )
    return fixes


def _buffer(doc: Document, line: int, code: str, name: str, module: str | None) -> list[Fix]:
    """Register the attribute as a (non-persistent) buffer in `__init__`; forward keeps assigning it."""
    title = f'Register `self.{name}` as a buffer (`self.register_buffer("{name}", None, persistent=False)`)'
    tree = doc.tree
    classes = [
        c
        for c in ast.walk(tree)
        if isinstance(c, ast.ClassDef) and c.lineno <= line + 1 <= (c.end_lineno or c.lineno)
    ]
    if not classes:
        return []
    cls = classes[-1]
    init = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    lines = doc.text.splitlines(keepends=True)
    register = f'self.register_buffer("{name}", None, persistent=False)\n'
    if init is None:
        ind = indent_of(lines[cls.body[0].lineno - 1])
        text = f"{ind}def __init__(self) -> None:\n{ind}    super().__init__()\n{ind}    {register}\n"
        first = node_lines(lines, cls.body[0])[0]
        if isinstance(cls.body[0], ast.Expr) and isinstance(cls.body[0].value, ast.Constant):  # docstring
            first = node_lines(lines, cls.body[0])[1]
        return [Fix(title, code, "buffer", [Edit(first, first, text)], {"compare": "self", "buffer": name})]
    last = init.body[-1]
    end = node_lines(lines, last)[1]
    edit = Edit(end, end, indent_of(lines[last.lineno - 1]) + register)
    return [Fix(title, code, "buffer", [edit], {"compare": "self", "buffer": name})]


def _export_call(doc: Document, code: str, module: str) -> list[Fix]:
    """A `__main__` block exporting the module with one `torch.randn(2, 8)` per forward argument."""
    tree = doc.tree
    cls = next((c for c in tree.body if isinstance(c, ast.ClassDef) and c.name == module), None)
    forward = next(
        (s for s in (cls.body if cls else []) if isinstance(s, ast.FunctionDef) and s.name == "forward"), None
    )
    if cls is None or forward is None:
        return []
    init = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    if init is not None and len(init.args.args) - len(init.args.defaults) > 1:
        return [
            refused(
                "Add an export call",
                code,
                "export-call",
                "`__init__` needs arguments ExportLens cannot guess",
            )
        ]
    count = len(forward.args.args) - 1 - len(forward.args.defaults)
    inputs = ", ".join(["torch.randn(2, 8)"] * count) + ("," if count == 1 else "")
    text = f'\n\nif __name__ == "__main__":\n    torch.export.export({module}(), ({inputs}))\n'
    end = len(doc.text.splitlines())
    return [Fix(f"Add an export call: `torch.export.export({module}(), ({inputs}))`", code, "export-call",
                [Edit(end, end, text)])]  # fmt: skip
