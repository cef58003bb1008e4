"""How each kind of failure is worded: the detail and fix data torch's record gives for its code.

Which rule decides which code is `rules.py`'s table; these build the `Kind` once a rule holds,
reading torch's message for the culprit's gist (the skipped function, the builtin, the op, the
condition torch could not decide).
"""

from __future__ import annotations

import ast
import re

from ..worker.wire.records import FailureRecord
from ..worker.wire.wordings import GUARD_ON_DATA, guard_condition
from .kind import Kind, first_line, short

__all__ = [
    "Kind",
    "data_dependent_kind",
    "formatted_value",
    "graph_break_kind",
    "not_pytree_kind",
    "table_kind",
]

_SKIPPED = re.compile(r"module: (?P<module>[^,]+), qualname: (?P<qualname>[^,]+),")
_BUILTIN = re.compile(r"builtin operator `(\w+)`")
_TIME_CALL = re.compile(r"Dynamo graph breaks on `([\w.]+)\(\)`")
_RAISED = re.compile(r"raised exception (?P<exc>\w+)\((?P<arg>.*)\)")
_CONVERTERS = re.compile(r"^(float|int|bool|complex)\(")
_UNBACKED_BOOL = re.compile(r"^(Eq|Ne)\(u\d+, [01]\)$")
_MISMATCH = re.compile(r'got RuntimeError\("(?P<why>[^"]+)"\)')
# An op that raised on fake tensors (gb4315): its name and what it raised are what to act on.
_FAKE_CALL = re.compile(
    r"Dynamo failed to run FX node with fake tensors: call_\w+ (?P<op>\S+?)\(.*\): "
    r"got (?P<exc>\w+)\((?P<q>['\"])(?P<why>.*?)(?P=q)\)"
)
EAGER_TOO = (
    "run the module eagerly on the same inputs: torch says the same call may fail there too; fix it there"
)
NOT_PYTREE = re.compile(
    r"Found <class '(?P<type>[\w.]+)'> in (?P<where>output|input)s?, which is not a known type"
)


def graph_break_kind(code: str, message: str, record: FailureRecord, snippet: str, statement: str) -> Kind:
    """A dynamo graph break that `code` names (`table.by_graph_break`, else `graph-break`)."""
    gb_type, gb_id = record.get("gb_type"), record.get("gb_id")
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
    elif code == "data-dependent-branch" and statement.startswith("assert "):
        # dynamo calls `assert not t.any()` a branch (the `not` hides the assert): it is an assert
        return Kind("tensor-assert", f"`{snippet}`", {"expression": snippet})
    elif code == "data-dependent-branch" and snippet:
        detail = f"`{snippet}`"
    elif code == "cond-branch-aliases-input":
        detail = "a branch returns its input or a view of it"
    elif code == "graph-break" and (fake_call := _FAKE_CALL.search(message)):
        what = f"`{fake_call['op']}` raised {fake_call['exc']}: {short(fake_call['why'], 300)}"
        return Kind(code, what, {"gb_type": gb_type, "gb_id": gb_id, "hint": EAGER_TOO})
    if code == "observed-exception":
        raised = _RAISED.search(message)
        if raised and statement.startswith("raise"):
            return Kind("user-exception", f"{raised['exc']}({raised['arg']})", {"exception": raised["exc"]})
        detail = f"{raised['exc']}({raised['arg']})" if raised else detail
    if code == "cond-branch-mismatch":
        got = _MISMATCH.search(message)
        detail = got["why"].replace("  ", " ") if got else detail
    if code == "missing-fake-kernel":
        op = re.search(
            r"unsupported operator: (\S+)|no fake impl registered for <CustomOpDef\((\S+?)\)>", message
        )
        name = (op[1] or op[2]) if op else record.get("op")
        return Kind(code, f"`{name}`" if name else "", {"op": name})
    return Kind(code, detail, {"gb_type": gb_type, "gb_id": gb_id})


def data_dependent_kind(record: FailureRecord, snippet: str, statement: str) -> Kind:
    """A guard on a value read out of a tensor: in an `assert`, a `float()`, a branch, or any."""
    cond = str(record.get("cond") or "")
    cond = cond or guard_condition(str(record.get("message", "")))
    fix = {"cond": cond, "expression": snippet}
    if record.get("strict") is False or GUARD_ON_DATA in (record.get("exc_mro") or []):
        if statement.startswith("assert"):
            return Kind("tensor-assert", f"`{snippet}`", fix)
        if m := _CONVERTERS.match(snippet):
            # The user's own value: `int(torch.max(lengths).item())` -> keep `torch.max(lengths)`.
            inner = re.sub(r"\.item\(\)$", "", snippet[m.end() : -1].strip()) if snippet.endswith(")") else ""
            hint = f"keep `{inner}` a tensor instead of `{m[1]}(...)` of it" if inner else ""
            return Kind("tensor-to-python-scalar", f"`{snippet}`", dict(fix, hint=hint))
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


def not_pytree_kind(full: str, where: str) -> Kind:
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


def table_kind(code: str, record: FailureRecord, message: str) -> Kind:
    """A failure that is no graph break, recognised by its exception or words (`table.TABLE`)."""
    text = first_line(message)
    if code == "cond-branch-aliases-input":
        return Kind(code, "a branch returns its input")
    if code == "cond-branch-mismatch":
        got = _MISMATCH.search(message)
        return Kind(code, got["why"].replace("  ", " ") if got else text)
    if code == "missing-fake-kernel":
        found = re.search(r"no fake impl registered for <CustomOpDef\((\S+?)\)>", message)
        op = record.get("op") or (found[1] if found else text)
        return Kind(code, f"`{op}`", {"op": op})
    if code == "untraceable-call":  # 2.14+: a `random` value export will not take as a new input
        return Kind(code, "`random`: its value would become an extra input of the exported program")
    return Kind(code, text)
