"""Which kind of failure a record is: structured fields first, message text as fallback.

`classify` returns the code plus fix data; where to put the finding is
`locate`'s business, except for constraint violations, whose culprit comes
from the worker's guard provenance (`guard_sites`).  The fallbacks are
deliberate and documented in docs/codes.md: a dynamo graph break of an
unlisted type is `graph-break`, a constraint violation of unknown wording
`dim-specialized`, any other failure no rule recognises `export-error`.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from .constraints import OUT_OF_RANGE, constraint
from .kind import Kind, first_line, short
from .table import by_exception_or_text, by_graph_break, said

__all__ = ["Kind", "classify"]

_SKIPPED = re.compile(r"module: (?P<module>[^,]+), qualname: (?P<qualname>[^,]+),")
_BUILTIN = re.compile(r"builtin operator `(\w+)`")
_TIME_CALL = re.compile(r"Dynamo graph breaks on `([\w.]+)\(\)`")
_RAISED = re.compile(r"raised exception (?P<exc>\w+)\((?P<arg>.*)\)")
_CONVERTERS = re.compile(r"^(float|int|bool|complex)\(")
_UNBACKED_BOOL = re.compile(r"^(Eq|Ne)\(u\d+, [01]\)$")
_NOT_PYTREE = re.compile(
    r"Found <class '(?P<type>[\w.]+)'> in (?P<where>output|input)s?, which is not a known type"
)


def classify(record: dict[str, Any], snippet: str, statement: str) -> Kind:
    message = str(record.get("message", ""))
    mro = set(record.get("exc_mro") or [record.get("exc_type", "")])
    exc_type = str(record.get("exc_type", ""))
    stage = record.get("stage", "export")
    if mro & {"SystemExit", "KeyboardInterrupt"}:
        return Kind("user-exit", f"{exc_type}({message})" if message else exc_type)
    if (
        "MemoryError" in mro
        or "not enough memory" in message
        or "can't allocate memory" in message
        or "Cannot allocate memory" in message
    ):
        return Kind("out-of-memory", first_line(message)[:200])
    if stage == "import":
        return Kind("import-error", f"{exc_type}: {first_line(message)}")
    if stage == "inputs":
        init = any(f.get("name") == "__init__" for f in record.get("user_frames", [])) or record.get(
            "library_init", False
        )
        return Kind("module-init-error" if init else "inputs-error", f"{exc_type}: {first_line(message)}")
    if stage == "internal":
        return Kind("internal-error", f"{exc_type}: {first_line(message)}", where="anchor")
    chained = mro | {str(c.get("exc_type", "")) for c in record.get("chain") or []}
    if "Constraints violated" not in message and (
        "GuardOnDataDependentSymNode" in chained
        or "Could not guard on data-dependent expression" in message
        or "data-dependent expression" in first_line(message)  # 2.15: "Could not extract ... from"
    ):
        # Strict wraps a data-dependent guard hit inside an op as a CONSTRAINT_VIOLATION UserError
        # (2.15 also without the "Consider annotating" prefix it had before).
        return _data_dependent(record, snippet, statement)
    if (
        "Constraints violated" in message
        or "ConstraintViolationError" in mro
        or record.get("error_type") == "CONSTRAINT_VIOLATION"
        or OUT_OF_RANGE.search(message)
    ):
        return constraint(message)
    if record.get("error_type") == "INVALID_INPUT" or "dynamic_shapes" in first_line(message):
        return Kind("dynamic-shapes-invalid", short(first_line(message)), where="dynamic_shapes")
    draft = record.get("draft_failure_type")
    if draft == "MISSING_FAKE_KERNEL":
        return Kind("missing-fake-kernel", f"`{record.get('op')}`", {"op": record.get("op")})
    if draft == "MISMATCHED_FAKE_KERNEL":
        return Kind("fake-kernel-mismatch", f"`{record.get('op')}`", {"op": record.get("op")})
    if not (record.get("gb_type") or record.get("gb_id")) and "TorchDynamoException" in mro:
        # A record with no structured graph-break fields: 2.10 starts the message with the type.
        named = first_line(message)
        if by_graph_break(None, named, message):
            record = dict(record, gb_type=named)
    if record.get("gb_type") or record.get("gb_id"):
        return _graph_break(message, record, snippet, statement)
    if (
        "GuardOnDataDependentSymNode" in mro
        or record.get("error_type") == "ANTI_PATTERN"
        or "Could not guard on data-dependent expression" in message
    ):
        return _data_dependent(record, snippet, statement)
    return _other(record, mro, message, statement)


def _graph_break(message: str, record: dict[str, Any], snippet: str, statement: str) -> Kind:
    gb_type, gb_id = record.get("gb_type"), record.get("gb_id")
    code = by_graph_break(gb_id, gb_type, message) or "graph-break"
    detail = ""
    explanation = re.search(r"Explanation: (.+)", message)
    if explanation:
        detail = short(explanation.group(1))
    if code == "untraceable-call" and (m := _SKIPPED.search(message)):
        module = "" if m["module"].startswith("<") else m["module"] + "."
        detail = f"`{module}{m['qualname']}`"
    elif code == "untraceable-call" and (m := _TIME_CALL.search(message)):
        detail = f"`{m[1]}`"
    elif code == "unsupported-builtin" and (m := _BUILTIN.search(message)):
        detail = f"`{m[1]}`"
    elif code == "data-dependent-branch" and snippet:
        detail = f"`{snippet}`"
    elif code == "cond-branch-aliases-input":
        detail = "a branch returns its input or a view of it"
    if code == "observed-exception":
        raised = _RAISED.search(message)
        if raised and statement.startswith("raise"):
            return Kind("user-exception", f"{raised['exc']}({raised['arg']})", {"exception": raised["exc"]})
        detail = f"{raised['exc']}({raised['arg']})" if raised else detail
    if code == "cond-branch-mismatch":
        got = re.search(r'got RuntimeError\("(?P<why>[^"]+)"\)', message)
        detail = got["why"].replace("  ", " ") if got else detail
    if code == "missing-fake-kernel":
        op = re.search(
            r"unsupported operator: (\S+)|no fake impl registered for <CustomOpDef\((\S+?)\)>", message
        )
        name = (op[1] or op[2]) if op else record.get("op")
        return Kind(code, f"`{name}`" if name else "", {"op": name})
    return Kind(code, detail, {"gb_type": gb_type, "gb_id": gb_id})


def _data_dependent(record: dict[str, Any], snippet: str, statement: str) -> Kind:
    cond = str(record.get("cond") or record.get("expr") or "")
    if not cond:
        m = re.search(r"data-dependent expression (.+?) \((unhinted|it was)", str(record.get("message", "")))
        cond = m.group(1) if m else ""
    fix = {"cond": cond, "expression": snippet}
    if record.get("strict") is False or "GuardOnDataDependentSymNode" in (record.get("exc_mro") or []):
        if statement.startswith("assert"):
            return Kind("tensor-assert", f"`{snippet}`", fix)
        if _CONVERTERS.match(snippet):
            return Kind("tensor-to-python-scalar", f"`{snippet}`", fix)
    if _UNBACKED_BOOL.match(cond):
        return Kind("data-dependent-branch", f"`{snippet}`", fix)
    if shown := formatted_value(statement):
        # 2.10's strict export guards on a value an f-string formats (2.13+ trace it).
        hint = (
            "do not format tensor values in forward: remove the line, or guard it with "
            "`if not torch.compiler.is_exporting():`"
        )
        return Kind(
            "data-dependent-guard",
            f"the f-string formats `{shown}`, read out of a tensor: torch needs its value (`{cond}`)",
            dict(fix, hint=hint),
        )
    return Kind("data-dependent-guard", f"`{snippet}` (torch needs to know whether `{cond}`)", fix)


def formatted_value(statement: str) -> str | None:
    """The first value an f-string in `statement` formats (`h.mean().item()`), if any."""
    try:
        tree = ast.parse(statement.rstrip(":"))
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.FormattedValue):
            return ast.unparse(node.value)
    return None


def _not_pytree(full: str, where: str) -> Kind:
    """A class torch.export cannot flatten in the module's output (a KV cache object, a custom result)."""
    name = full.rpartition(".")[2]
    hint = (
        f"register `{name}` as a pytree node (`torch.utils._pytree.register_pytree_node` or "
        f"`torch.export.register_dataclass`)"
    )
    if "Cache" in name:
        hint = f"export without the cache (`use_cache=False` in the config or call), or {hint}"
    elif where == "output":
        hint = f"return tensors (or tuples/dicts of them), or {hint}"
    return Kind(
        "export-error",
        f"the {where} holds a `{full}`, which torch.export cannot flatten into tensors",
        {"type": full, "hint": hint},
        where="anchor",
    )


def _other(record: dict[str, Any], mro: set[str], message: str, statement: str) -> Kind:
    text = first_line(message)
    if m := _NOT_PYTREE.search(message):
        return _not_pytree(m["type"], m["where"])
    code = by_exception_or_text(mro, message)
    if code == "cond-branch-aliases-input":
        return Kind(code, "a branch returns its input")
    if code == "cond-branch-mismatch":
        got = re.search(r'got RuntimeError\("(?P<why>[^"]+)"\)', message)
        return Kind(code, got["why"].replace("  ", " ") if got else text)
    if code == "missing-fake-kernel":
        found = re.search(r"no fake impl registered for <CustomOpDef\((\S+?)\)>", message)
        op = record.get("op") or (found[1] if found else text)
        return Kind(code, f"`{op}`", {"op": op})
    if code == "untraceable-call":  # 2.14+: a `random` value export will not take as a new input
        return Kind(code, "`random`: its value would become an extra input of the exported program")
    if code is not None and code != "data-dependent-branch":
        return Kind(code, text)
    if "Cannot access data pointer of Tensor" in message:
        frames = record.get("frames") or []
        deep = any(str(f.get("path", "")).endswith("/copy.py") for f in frames)
        return Kind("tensor-deepcopy" if deep else "tensor-data-ptr", "")
    if code == "data-dependent-branch":  # torch <= 2.6 wording
        return Kind(code, text)
    if "DataDependentOutputException" in mro or "_local_scalar_dense" in said(message):  # torch 2.2
        branch = statement.startswith(("if ", "elif ", "while "))
        return Kind("data-dependent-branch" if branch else "data-dependent-guard", text)
    if "Unsupported" in mro:
        return Kind("graph-break", text)
    if record.get("user_raised"):
        return Kind(
            "user-exception", f"{record.get('exc_type')}: {text}", {"exception": record.get("exc_type")}
        )
    return Kind("export-error", f"{record.get('exc_type')}: {text}")  # the fallback: torch's first line
