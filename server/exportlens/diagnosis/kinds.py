"""Which kind of failure a record is: structured fields first, message text as fallback.

`classify` returns the code plus fix data; where to put the finding is
`locate`'s business, except for constraint violations, whose culprit comes
from the worker's guard provenance (`guard_sites`).  The fallbacks are
deliberate and documented in docs/codes.md: a dynamo graph break of an
unlisted type is `graph-break`, a constraint violation of unknown wording
`dim-specialized`, any other failure no rule recognises `export-error`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_GB_TYPES = {
    "Data-dependent branching": "data-dependent-branch",
    "Failed to trace builtin operator": "unsupported-builtin",
    "Attempted to call function marked as skipped": "untraceable-call",
    "Unsupported method call": "unsupported-python",
    "Observed exception": "observed-exception",
    "Attempted to copy.deepcopy a tensor": "tensor-deepcopy",
    "Operator does not support running with fake tensors": "missing-fake-kernel",
    "torch.cond: differing branch outputs": "cond-branch-mismatch",
    "Encountered aliasing during higher order op tracing": "cond-branch-aliases-input",
}
_SPECIALIZED = re.compile(
    r"You marked (?P<dim>\w+) as dynamic but your code specialized it to be a constant "
    r"\((?P<value>-?\d+)\)"
)
_NARROWED = re.compile(r"Not all values of (?P<dim>\w+) = (?P<source>.+?) in the specified range")
_EQUAL = re.compile(
    r"The values of (?P<dim>\w+) = (?P<source>\S+) and (?P<other>\w+) = (?P<other_source>\S+) "
    r"must always be equal"
)
_OUT_OF_RANGE = re.compile(
    r"(?P<value>-?\d+) not in range \[(?P<min>[^,\]]+), (?P<max>[^\]]+)\]"
    r"|(?P<input>\S+) is outside of specified dynamic range \[(?P<min2>[^,\]]+), "
    r"(?P<max2>[^\]]+)\]|Guard failed: (?P<guard>.+)"
)
_MULTIPLE = re.compile(r"^(?P<dim>\w+) = (?P<factor>\d+)\*(?P<base>\w+)$")
_SKIPPED = re.compile(r"module: (?P<module>[^,]+), qualname: (?P<qualname>[^,]+),")
_BUILTIN = re.compile(r"builtin operator `(\w+)`")
_RAISED = re.compile(r"raised exception (?P<exc>\w+)\((?P<arg>.*)\)")
_CONVERTERS = re.compile(r"^(float|int|bool|complex)\(")
_UNBACKED_BOOL = re.compile(r"^(Eq|Ne)\(u\d+, [01]\)$")
_NOT_PYTREE = re.compile(
    r"Found <class '(?P<type>[\w.]+)'> in (?P<where>output|input)s?, which is not a known type"
)


@dataclass
class Kind:
    code: str
    detail: str = ""  # extra words for the message (torch's own gist)
    fix: dict[str, Any] = field(default_factory=dict)
    where: str = "frames"  # frames | anchor | guard | args | dynamic_shapes (of the export call)


def suggested_fixes(message: str) -> list[str]:
    """torch's "Suggested fixes:" block, one fix per line."""
    _, found, rest = message.partition("Suggested fixes:")
    if not found:
        return []
    fixes = []
    for line in rest.splitlines()[1:]:
        if not line.startswith("  ") or not line.strip():
            break
        fixes.append(line.strip())
    return fixes


def short(text: str, limit: int = 160) -> str:
    """The first sentence of torch's text, bounded: findings stay readable in a hover."""
    text = text.strip()
    sentence = re.split(r"(?<=[.!?])\s+(?=[A-Z])", text, maxsplit=1)[0]
    return sentence if len(sentence) <= limit else sentence[: limit - 1] + "…"


def first_line(message: str) -> str:
    lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
    return lines[0] if lines else ""


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
    if "Could not guard on data-dependent expression" in message and "Constraints violated" not in message:
        # Strict wraps a data-dependent guard hit inside an op as a CONSTRAINT_VIOLATION UserError.
        return _data_dependent(record, snippet, statement)
    if (
        "Constraints violated" in message
        or "ConstraintViolationError" in mro
        or record.get("error_type") == "CONSTRAINT_VIOLATION"
        or _OUT_OF_RANGE.search(message)
    ):
        return _constraint(message)
    if record.get("error_type") == "INVALID_INPUT" or "dynamic_shapes" in first_line(message):
        return Kind("dynamic-shapes-invalid", short(first_line(message)), where="dynamic_shapes")
    draft = record.get("draft_failure_type")
    if draft == "MISSING_FAKE_KERNEL":
        return Kind("missing-fake-kernel", f"`{record.get('op')}`", {"op": record.get("op")})
    if draft == "MISMATCHED_FAKE_KERNEL":
        return Kind("fake-kernel-mismatch", f"`{record.get('op')}`", {"op": record.get("op")})
    gb_type = record.get("gb_type")
    if gb_type:
        return _graph_break(str(gb_type), message, record, snippet, statement)
    if (
        "GuardOnDataDependentSymNode" in mro
        or record.get("error_type") == "ANTI_PATTERN"
        or "Could not guard on data-dependent expression" in message
    ):
        return _data_dependent(record, snippet, statement)
    return _other(record, mro, message, statement)


def _constraint(message: str) -> Kind:
    fixes = suggested_fixes(message)
    if m := _SPECIALIZED.search(message):
        dim, value = m["dim"], int(m["value"])
        if value in (0, 1):
            return Kind(
                "dim-example-too-small",
                f"`{dim}` became the constant {value}",
                {"dim": dim, "value": value, "suggested": fixes},
                where="guard",
            )
        return Kind(
            "dim-specialized",
            f"`{dim}` became the constant {value}",
            {"dim": dim, "value": value, "suggested": fixes},
            where="guard",
        )
    if m := _NARROWED.search(message):
        fix: dict[str, Any] = {"dim": m["dim"], "source": m["source"], "suggested": fixes}
        detail = f"not every value of `{m['dim']}` passes the code's shape test"
        multiple = next((d for d in map(_MULTIPLE.match, fixes) if d and d["dim"] == m["dim"]), None)
        if multiple:
            # Patches / heads / reshapes: the size must divide evenly (torch: `h = 8*_h`).
            detail = f"`{m['dim']}` must be a multiple of {multiple['factor']}"
            fix["multiple_of"] = int(multiple["factor"])
            fix["hint"] = (
                f"declare `{m['dim']}` as a multiple of {multiple['factor']} "
                f"(`{multiple['base']} = Dim(...)`, `{m['dim']} = {multiple['factor']}*{multiple['base']}`), "
                "and give an example size that is one"
            )
        return Kind("dim-range-narrowed", detail, fix, where="guard")
    if m := _EQUAL.search(message):
        return Kind(
            "dims-must-be-equal",
            f"`{m['dim']}` and `{m['other']}` must always be equal",
            {"dim": m["dim"], "other": m["other"], "suggested": fixes},
            where="guard",
        )
    if m := _OUT_OF_RANGE.search(message):
        low, high = m["min"] or m["min2"], m["max"] or m["max2"]
        detail = m.group(0)
        return Kind(
            "example-outside-dim-range",
            detail,
            {"value": m["value"], "min": low, "max": high, "guard": m["guard"]},
            where="args",
        )
    return Kind("dim-specialized", first_line(message), {"suggested": fixes}, where="guard")


def _graph_break(gb_type: str, message: str, record: dict[str, Any], snippet: str, statement: str) -> Kind:
    code = _GB_TYPES.get(gb_type, "graph-break")
    if gb_type == "RuntimeError when making fake tensor call" and "torch.cond" in message:
        code = "cond-branch-mismatch"
    elif "no fake impl registered" in message:  # a @torch.library.custom_op without register_fake
        code = "missing-fake-kernel"
    detail = ""
    explanation = re.search(r"Explanation: (.+)", message)
    if explanation:
        detail = short(explanation.group(1))
    if code == "untraceable-call" and (m := _SKIPPED.search(message)):
        module = "" if m["module"].startswith("<") else m["module"] + "."
        detail = f"`{module}{m['qualname']}`"
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
    return Kind(code, detail, {"gb_type": gb_type, "gb_id": record.get("gb_id")})


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
    return Kind("data-dependent-guard", f"`{snippet}` (torch needs to know whether `{cond}`)", fix)


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
    if "UncapturedHigherOrderOpError" in mro or "torch.cond" in message:
        if "aliasing" in message:
            return Kind("cond-branch-aliases-input", "a branch returns its input")
        got = re.search(r'got RuntimeError\("(?P<why>[^"]+)"\)', message)
        return Kind("cond-branch-mismatch", got["why"].replace("  ", " ") if got else text)
    if "UnsupportedOperatorException" in mro or "no fake impl" in message or "register_fake" in message:
        op = record.get("op") or text
        return Kind("missing-fake-kernel", f"`{op}`", {"op": op})
    if ".numpy() is not supported" in message:
        return Kind("tensor-numpy", text)
    if "Cannot access data pointer of Tensor" in message:
        frames = record.get("frames") or []
        deep = any(str(f.get("path", "")).endswith("/copy.py") for f in frames)
        return Kind("tensor-deepcopy" if deep else "tensor-data-ptr", "")
    # 2.2.2 wordings.
    if "Dynamic control flow is not supported" in message:
        return Kind("data-dependent-branch", text)
    if "DataDependentOutputException" in mro or "_local_scalar_dense" in message:
        branch = statement.startswith(("if ", "elif ", "while "))
        return Kind("data-dependent-branch" if branch else "data-dependent-guard", text)
    if "BuiltinVariable(" in message:
        return Kind("unsupported-builtin", text)
    if "Unsupported" in mro:
        return Kind("graph-break", text)
    if record.get("user_raised"):
        return Kind(
            "user-exception", f"{record.get('exc_type')}: {text}", {"exception": record.get("exc_type")}
        )
    return Kind("export-error", f"{record.get('exc_type')}: {text}")  # the fallback: torch's first line
