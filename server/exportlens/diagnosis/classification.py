"""The classification table: which code a failure record is, the first rule that holds deciding.

Structured fields first, message text as fallback.  The fallbacks are deliberate and documented
in docs/codes.md: a dynamo graph break of an unlisted type is `graph-break`, a constraint
violation of unknown wording `dim-specialized`, any other failure `export-error` with torch's
first line.  `rules.py` evaluates it, then the tables that refine its kind.
"""

from __future__ import annotations

from collections.abc import Callable

from ..worker.wire.records import FailureRecord
from ..worker.wire.wordings import GUARD_EXPRESSION, guard_on_data
from . import devices
from .constraints import OUT_OF_RANGE, constraint, solver_gave_up, unsolved
from .kind import Kind, short
from .kinds import NOT_PYTREE, data_dependent_kind, graph_break_kind, not_pytree_kind, table_kind
from .memory import memory_kind
from .outputs import output_kind
from .rule import Failure, Rule, rule
from .table import TABLE, by_exception_or_text, by_graph_break, said

_DATA_DEPENDENT = {
    "tensor-assert",
    "tensor-to-python-scalar",
    "data-dependent-branch",
    "data-dependent-guard",
}
_CONSTRAINTS = {
    "dim-specialized",
    "dim-range-narrowed",
    "dims-must-be-equal",
    "dim-example-too-small",
    "example-outside-dim-range",
}
_GRAPH_BREAKS = {
    *TABLE,
    "graph-break",
    "user-exception",
    "tensor-assert",
}  # an `assert not` dynamo reads as a branch
_OOM_WORDS = ("not enough memory", "can't allocate memory", "Cannot allocate memory")


# -- predicates longer than a line -------------------------------------------------------------
def _out_of_memory(f: Failure) -> bool:
    return "MemoryError" in f.mro or any(words in f.message for words in _OOM_WORDS)


def _guard_inside_an_op(f: Failure) -> bool:
    """Strict wraps a data-dependent guard hit inside an op as a CONSTRAINT_VIOLATION UserError
    (2.15 also without the "Consider annotating" prefix it had before)."""
    return "Constraints violated" not in f.message and (
        guard_on_data(f.chained, f.message) or GUARD_EXPRESSION in f.first_line
    )


def _constraint_violated(f: Failure) -> bool:
    return (
        "Constraints violated" in f.message
        or "ConstraintViolationError" in f.mro
        or f.record.get("error_type") == "CONSTRAINT_VIOLATION"
        or bool(OUT_OF_RANGE.search(f.message))
    )


def _named_break(f: Failure) -> bool:
    """2.10: a dynamo error without graph-break fields whose first line is a known break's type."""
    return (
        not f.has_graph_break
        and "TorchDynamoException" in f.mro
        and bool(by_graph_break(None, f.first_line, f.message))
    )


def _data_dependent_guard(f: Failure) -> bool:
    return guard_on_data(f.mro, f.message) or f.record.get("error_type") == "ANTI_PATTERN"


def _table_code(f: Failure) -> str | None:
    return by_exception_or_text(f.mro, f.message)


def _data_dependent_output(f: Failure) -> bool:
    return "DataDependentOutputException" in f.mro or "_local_scalar_dense" in said(f.message)


# -- kinds longer than a line --------------------------------------------------------------------
def _output(f: Failure) -> Kind:
    kind = output_kind(f.record)
    if kind is None:
        raise AssertionError("made only when `output_kind` finds one")
    return kind


def _exit(f: Failure) -> Kind:
    return Kind("user-exit", f"{f.exc_type}({f.message})" if f.message else f.exc_type)


def _exits(f: Failure) -> bool:
    return bool(f.mro & {"SystemExit", "KeyboardInterrupt"})


# Command-line parsers: a script's required argument exits (argparse: status 2) without the
# arguments ExportLens never passes (worker/job/loader.py runs the script with none).
_ARG_PARSERS = (
    "/argparse.py",
    "/click/",
    "/typer/",
    "/simple_parsing/",
    "/absl/",
    "/tyro/",
    "/jsonargparse/",
)


def _exits_parsing_arguments(f: Failure) -> bool:
    frames = f.record.get("frames") or []
    parsing = any(any(p in str(frame.get("path", "")) for p in _ARG_PARSERS) for frame in frames)
    return _exits(f) and parsing and f.stage in ("import", "inputs")


def _exit_building(f: Failure) -> Kind:
    """An exit of a command-line parser while the file is loaded or the module and inputs are
    built: a script's required argument, which ExportLens does not pass (it passes none)."""
    said = f"{f.exc_type}({f.message})" if f.message else f.exc_type
    init = any(frame.get("name") == "__init__" for frame in f.facts.user_frames)
    why = f"{said}: the script's command-line parsing exits; ExportLens runs it with no arguments"
    return Kind("module-init-error" if init else "inputs-error", why)


def _inputs(f: Failure) -> Kind:
    init = any(frame.get("name") == "__init__" for frame in f.facts.user_frames) or f.facts.library_init
    return Kind("module-init-error" if init else "inputs-error", f.error)


def _data_dependent(f: Failure) -> Kind:
    return data_dependent_kind(f.record, f.facts.snippet, f.facts.statement)


def _graph_break(f: Failure, record: FailureRecord) -> Kind:
    code = by_graph_break(record.get("gb_id"), record.get("gb_type"), f.message) or "graph-break"
    return graph_break_kind(code, f.message, record, f.facts.snippet, f.facts.statement)


def _op(code: str) -> Callable[[Failure], Kind]:
    return lambda f: Kind(code, f"`{f.record.get('op')}`", {"op": f.record.get("op")})


def _not_pytree(f: Failure) -> Kind:
    found = NOT_PYTREE.search(f.message)
    if found is None:
        raise AssertionError("made only when the message names the type")
    return not_pytree_kind(found["type"], found["where"])


def _no_data_pointer(f: Failure) -> Kind:
    deep = any(str(frame.get("path", "")).endswith("/copy.py") for frame in f.record.get("frames") or [])
    return Kind("tensor-deepcopy" if deep else "tensor-data-ptr", "")


def _data_dependent_output_kind(f: Failure) -> Kind:
    branch = f.facts.statement.startswith(("if ", "elif ", "while "))
    return Kind("data-dependent-branch" if branch else "data-dependent-guard", f.first_line)


def _user_exception(f: Failure) -> Kind:
    return Kind("user-exception", f.raw_error, {"exception": f.record.get("exc_type")})


R = rule  # rows: name, the codes it yields, when it holds, the kind it makes
# fmt: off
CLASSIFY: tuple[Rule[Failure, Kind], ...] = (
    R("output torch cannot flatten", "unflattenable-output",
      lambda f: output_kind(f.record) is not None, _output),
    # ExportLens's own (issue 40): the script's arguments it does not pass
    R("the script's argument parsing exited", {"module-init-error", "inputs-error"},
      _exits_parsing_arguments, _exit_building),
    R("the code exited", "user-exit", _exits, _exit),
    R("out of memory", "out-of-memory", _out_of_memory, memory_kind),
    R("building needed real values or the device", "needs-real-device", devices.needs_real,
      devices.needs_real_kind),
    R("importing the file raised", "import-error", lambda f: f.stage == "import",
      lambda f: Kind("import-error", f.error)),
    R("building the inputs raised", {"module-init-error", "inputs-error"},
      lambda f: f.stage == "inputs", _inputs),
    R("ExportLens failed", "internal-error", lambda f: f.stage == "internal",
      lambda f: Kind("internal-error", f.error, where="anchor")),
    R("tensors on two devices meet", "device-mismatch", devices.mismatched, devices.mismatch_kind),
    R("data-dependent guard inside an op", _DATA_DEPENDENT, _guard_inside_an_op, _data_dependent),
    R("a Dim's constraint violated", _CONSTRAINTS, _constraint_violated, lambda f: constraint(f.message)),
    R("torch's Dim solver gave up", "dim-range-narrowed",
      lambda f: solver_gave_up(f.record), lambda f: unsolved(f.message)),
    R("dynamic_shapes does not fit the inputs", "dynamic-shapes-invalid",
      lambda f: f.record.get("error_type") == "INVALID_INPUT" or "dynamic_shapes" in f.first_line,
      lambda f: Kind("dynamic-shapes-invalid", short(f.first_line), where="dynamic_shapes")),
    R("draft export: no fake kernel", "missing-fake-kernel",
      lambda f: f.record.get("draft_failure_type") == "MISSING_FAKE_KERNEL", _op("missing-fake-kernel")),
    R("draft export: fake kernel mismatch", "fake-kernel-mismatch",
      lambda f: f.record.get("draft_failure_type") == "MISMATCHED_FAKE_KERNEL", _op("fake-kernel-mismatch")),
    R("graph break named by the first line (2.10)", _GRAPH_BREAKS, _named_break,
      lambda f: _graph_break(f, {**f.record, "gb_type": f.first_line})),
    R("graph break", _GRAPH_BREAKS, lambda f: f.has_graph_break, lambda f: _graph_break(f, f.record)),
    R("data-dependent guard", _DATA_DEPENDENT, _data_dependent_guard, _data_dependent),
    R("an input torch cannot flatten", "export-error",
      lambda f: bool(NOT_PYTREE.search(f.message)), _not_pytree),
    R("exception or words of a known kind", set(TABLE) - {"data-dependent-branch"},
      lambda f: _table_code(f) not in (None, "data-dependent-branch"),
      lambda f: table_kind(str(_table_code(f)), f.record, f.message)),
    R("no data pointer (fake tensors)", {"tensor-deepcopy", "tensor-data-ptr"},
      lambda f: "Cannot access data pointer of Tensor" in f.message, _no_data_pointer),
    R("data-dependent branch (torch <= 2.6 wording)", "data-dependent-branch",
      lambda f: _table_code(f) == "data-dependent-branch",
      lambda f: Kind("data-dependent-branch", f.first_line)),
    R("data-dependent output (torch 2.2)", {"data-dependent-branch", "data-dependent-guard"},
      _data_dependent_output, _data_dependent_output_kind),
    R("any other graph break", "graph-break", lambda f: "Unsupported" in f.mro,
      lambda f: Kind("graph-break", f.first_line)),
    R("the code raised", "user-exception", lambda f: f.facts.user_raised, _user_exception),
    R("anything else: torch's first line", "export-error", lambda f: True,
      lambda f: Kind("export-error", f.raw_error)),
)
# fmt: on
