"""Everything that crosses the engine <-> worker boundary, declared once, and its one encoding.

Each channel carries one JSON object per line (UTF-8):
- engine -> worker (the worker's stdin): `ToWorker`, a `JobOp` or a `CancelOp`;
- worker -> engine (a private copy of its stdout): `FromWorker`, a `ReadyEvent` or `FatalEvent`
  once at start, then per job any `PartialEvent`s (its first failure, early) and one `ResultEvent`;
- worker -> job child: the `JobMessage` (a forked child gets it in memory, a spare or spawned
  one as a line);
- job child -> worker (its result pipe): `ChildReport`s, early ones marked `partial`, then the last.
A job ends in a `JobAnswer`, made by the child and completed by the worker (time, output, exit)
or made by the engine when the worker could not answer (timeout, worker died).

Stdlib only, Python 3.10+: the worker runs in the user's interpreter, loaded by file location
(boot.py), with nothing of the server's.  Payloads are TypedDicts, so plain dicts at run time
(diagnosis reads `record["message"]`); optional keys sit in `total=False` classes (`NotRequired`
is 3.11+).  The records a job reports (failure, summary) are declared in records.py.  Decoding
checks each line against these declarations (shapes.py) and says what is wrong with one that
does not fit.
"""

from __future__ import annotations

import json
import os
from typing import Any, Literal, TypedDict, cast

from .compile_records import CompileReport
from .records import (  # the payloads a job reports
    ExportSummary,
    FailureRecord,
    Frame,
    LoweringResult,
    ModuleTree,
    PartDim,
    PartInputs,
)
from .shapes import ShapeError, check

OpName = Literal["job", "cancel"]
EventName = Literal["ready", "fatal", "partial", "result"]
Status = Literal["exported", "failed", "skipped", "crashed", "timeout", "cancelled"]
# What a job's child is doing, in order; a job stopped at its time limit says which pass ran out.
Pass = Literal[
    "load",
    "inputs",
    "export",
    "narrowing",
    "decode_step",
    "locate",
    "eager",
    "parts",
    "search",
    "lower",
    "gpu_path",
]
PASSES: dict[Pass, str] = {  # each pass as a timeout's message names it
    "load": "importing the file and building the module",
    "inputs": "building the example inputs",
    "export": "the export itself",
    "narrowing": "finding the line of a shape check that narrows the Dims",
    "decode_step": "calling the program for one decode step (one token at the next cache position)",
    "locate": "finding the line that added the guard",
    "eager": "running the module eagerly",
    "parts": "recording what its parts receive",
    "search": "the search for more failures",
    "lower": "checking the lowering of the exported program",
    "gpu_path": "exporting the path the script takes on a GPU machine",
}
# Said when a pass after the module's answer (its first failure, its clean export) ran out of time.
OUT_OF_TIME = (
    "{what} ran out of the time limit and was stopped; what it found is shown. Raise `timeoutSeconds`"
    " (`--timeout`) to give it more{alternative}"
)
SEARCH_OFF = ", or switch it off with `allFailures: false` (`--first-failure-only`)"


def out_of_time(step: Pass) -> str:
    return OUT_OF_TIME.format(what=PASSES[step], alternative=SEARCH_OFF if step == "search" else "")


TARGET_OUT_OF_TIME = (
    "it ran out of the job's time limit; raise `timeoutSeconds` (`--timeout`) to give it more"
)
# A child that crashed after its answer (a clean export, then its lowering ran the `.pte` or eager).
TARGET_CRASHED = (
    "the check's process crashed ({how}) while {what}: the export itself finished before; "
    "the crash is in that pass, not the export (the output shows what it printed)"
)


# -- the job --------------------------------------------------------------------------------
# A prelude entry `[line, col]` is a statement to run; `[line, col, PRELUDE_ENTER]` is the loop there
# entered for its first pass (its `for` target bound from its first item, its `while` condition
# evaluated once): the entries after it are statements of its body (worker/job/prelude.py).
PRELUDE_ENTER = 1


class ExportCallInputs(TypedDict):
    """The file's own `export(...)` call: its statements before it, then its arguments."""

    kind: Literal["export-call"]
    call: list[int]  # [line, col, end_line, end_col]: a call chained on it starts there too
    prelude: list[list[int]]  # [line, col] of each statement run before it, loop entries marked
    line: int  # 0-based line of the call


class CompileCallInputs(TypedDict):
    """The first call of an object the file compiles (`out = model(x)`): the object and its arguments."""

    kind: Literal["compile-call"]
    call: list[int]  # [line, col, end_line, end_col] (`model(x).sum()`: two calls start at `model`)
    prelude: list[list[int]]  # as ExportCallInputs's: a `__main__` block's, a loop's first pass


class _CompileRequired(TypedDict):
    fullgraph: bool  # the call says `fullgraph=True`: a graph break is an error
    dynamic: bool | None  # the call's `dynamic=`; None: not said (automatic dynamic shapes)


class CompileSwitch(TypedDict):
    """A change the script makes between calls that torch guards (discovery/compile_switches.py)."""

    kind: Literal["mode", "dtype", "autocast", "grad"]
    # "eval"/"train"; a dtype's name ("float64"); autocast's dtype, "" for the default; grad mode off's
    # context ("no_grad()", "inference_mode()", "set_grad_enabled(False)")
    value: str
    line: int  # 1-based, in the job's file
    call: bool  # the compiled module is called after it (with the group's contexts around the call)


class VaryingArgument(TypedDict):
    """An argument the script gives a new value each call (discovery/compile_values.py)."""

    argument: int | str  # its position in the call, or its keyword
    line: int  # 1-based: the call that varies it, in the job's file


class CompileSpec(_CompileRequired, total=False):
    """The module is checked as `torch.compile` traces it (worker/job/compiled.py), not exported."""

    switches: list[CompileSwitch]  # after the first call, in file order (worker/job/switch_recompiles.py)
    varying: list[VaryingArgument]  # the arguments it varies (worker/job/value_recompiles.py)


ExampleInputs = TypedDict(  # `Cls().example_inputs()` ("class" is a keyword: functional form)
    "ExampleInputs", {"kind": Literal["example-inputs"], "class": str, "method": str}
)
InferredInputs = TypedDict(  # `Cls()` fed `expr`, built from its first layer
    "InferredInputs", {"kind": Literal["inferred"], "class": str, "expr": str}
)
_RecordedRequired = TypedDict(  # a part, as `parent`'s module holds it, fed what it received there
    "_RecordedRequired",
    {
        "kind": Literal["recorded"],
        "class": str,
        "parent": "ExportCallInputs | ExampleInputs",
        "module": str,  # its path in the parent module
        "args": list[Any],  # structure nodes (part_inputs.py)
        "kwargs": dict[str, Any],
        "dims": dict[str, PartDim],
    },
)


class RecordedInputs(_RecordedRequired, total=False):
    meta: bool  # the parent was built on the meta device (sizing.py): built there again


InputsSpec = (  # keyed on "kind"
    ExportCallInputs | ExampleInputs | InferredInputs | RecordedInputs | CompileCallInputs
)
TargetSpec = TypedDict("TargetSpec", {"name": str, "class": str | None, "inputs": InputsSpec})


class OriginalTarget(TypedDict):
    inputs: InputsSpec


class OriginalBuffer(TypedDict):
    """The unpatched buffer a quick-fix's export is compared with."""

    source: str
    target: OriginalTarget
    load_until: list[int] | None


class _VerifyRequired(TypedDict):
    compare: Literal["original", "self"]  # eager reference: the unpatched module, or the patched one


class _CompileProofRequired(TypedDict):
    lines: list[int]


class CompileProof(_CompileProofRequired, total=False):
    """A graph break's fix is proven by compiling the candidate (worker/job/compiled.py): no break on
    `lines` (1-based, the candidate's lines that hold the break's old line), nor at `site` (a library
    break's innermost frame, [path, 1-based line]: the user's lines hold none of its frames)."""

    site: list[str | int]


class ProvenElsewhere(TypedDict):
    """A fix in `path`, a file the job's file imports as `module_name` (the job's is the file whose
    compile call checks it, check/sites.py): loaded as `source` (the fix applied) for the candidate
    and as `original` for the eager reference."""

    path: str
    module_name: str
    source: str
    original: str


class VerifySpec(_VerifyRequired, total=False):
    """How to judge a quick-fix's proof (worker/job/verify.py has the meaning of each)."""

    buffer: str  # a buffer the exported program must update
    branch_line: int  # 1-based first line of the `if` branch that inputs are varied to reach
    branch_polarity: bool
    refine: bool  # let torch narrow new Dims from its "Suggested fixes:"
    decode: bool  # a cache-keeping fix: the first decode step must match eager generation too
    original: OriginalBuffer  # with compare "original"
    compile: CompileProof  # compiled as the job's `compile` says instead of exported
    elsewhere: ProvenElsewhere  # the fix is in a file the job's file imports (its `lines` are there)


DevicePolicy = Literal["fake", "real", "cpu"]  # worker/job/devices.py says what each does


class _JobRequired(TypedDict):
    id: int
    path: str
    source: str
    module_name: str  # what the buffer is executed as (never "__main__")
    sys_path: list[str]
    target: TargetSpec
    strict: bool | None  # None: the export call's own `strict=`, else non-strict
    timeout: float
    memory_mb: int | None
    load_until: list[int] | None  # [line, col]: the top-level statement the load stops before
    all_failures: bool
    save_to: str | None
    meta_above_mb: float | None
    verify: VerifySpec | None  # a quick-fix's proof instead of a check


class JobMessage(_JobRequired, total=False):
    device: DevicePolicy  # where the user's tensors go (worker/job/devices.py); absent: "fake"
    targets: list[str]  # lowerings after a clean export (worker/lowering/); absent: export only
    quantize: str  # "xnnpack": the executorch target quantizes first (lowering/quantize.py); absent: none
    parts_from: list[str]  # files whose classes' inputs are recorded (part_inputs.py); absent: none
    graph: bool  # the summary carries the graph panel's view (records.GraphView); absent: not
    compile: CompileSpec  # traced as torch.compile does (worker/job/compiled.py); absent: exported
    cwd: str  # the folder the child runs in (a daemon's client's, engine/daemon.py); absent: the worker's
    env: dict[str, str]  # the child's os.environ (a daemon's client's); absent: the worker's


# -- the answer -----------------------------------------------------------------------------
class _VerdictRequired(TypedDict):
    exports: bool
    matches: bool | None
    branches_checked: int
    reason: str


class VerifyVerdict(_VerdictRequired, total=False):
    refined: Any  # the dynamic_shapes torch narrowed, as JSON
    decoded: int  # the cache position of the decode step that matched eager generation


class ExitInfo(TypedDict, total=False):
    """How a crashed child ended: killed by a signal, or exited."""

    signal: str
    code: int


class _AnswerRequired(TypedDict):
    status: Status


class JobAnswer(_AnswerRequired, total=False):
    seconds: float
    strict: bool
    timings: dict[str, float]  # seconds per stage, from the child (and the worker's fork time)
    summary: ExportSummary  # exported
    failure: FailureRecord  # failed
    parts: list[PartInputs]  # what each part class of the file received (part_inputs.py)
    tree: ModuleTree  # the class exported and the workspace classes in it (module_tree.py)
    targets: list[LoweringResult]  # each lowering's verdict after a clean export (lowering/)
    verify: VerifyVerdict  # a proof's verdict
    saved: str  # where the .pt2 was written
    save_error: str
    reason: str  # why skipped / timed out / crashed
    stopped_in: Pass  # the pass its time limit stopped (a timeout; or a pass after the answer it keeps)
    crashed_in: Pass  # the pass after the answer it keeps in which the child crashed
    stopped_at: list[Frame]  # its stack when stopped, innermost first (host/stack_at_stop.py)
    exit: ExitInfo  # crashed
    worker_died: bool  # crashed because the worker itself went away
    output: str  # what the job printed (its start)
    output_dropped: int
    compile: CompileReport  # a compile check's graphs, breaks and recompiles (worker/job/compiled.py)


class JobOp(TypedDict):
    op: Literal["job"]
    job: JobMessage


class CancelOp(TypedDict):
    op: Literal["cancel"]
    id: int


class ReadyEvent(TypedDict):
    event: Literal["ready"]
    torch: str
    python: str
    pid: int
    warmup_seconds: float


class FatalEvent(TypedDict):
    """The worker could not start: why, and what it found (for "too old" and "shadowed by")."""

    event: Literal["fatal"]
    message: str
    python: str
    torch: str | None
    torch_origin: str | None


class _PartialRequired(TypedDict):
    event: Literal["partial"]
    id: int


class PartialEvent(_PartialRequired, total=False):
    """An answer before the last (a failure's first finding), or what the job exports once built
    (kept by the engine for a worker that dies before it answers)."""

    answer: JobAnswer
    tree: ModuleTree
    limit: float  # the job's limit grew (budget.py `Budget.scaled`): the engine hears it is alive


class ResultEvent(TypedDict):
    event: Literal["result"]
    id: int
    answer: JobAnswer


class _ReportRequired(TypedDict):
    partial: bool


class ChildReport(_ReportRequired, total=False):
    """The child's answer (its last report), or an early report: an answer to show at once, or
    (`keep`) one for the worker to report if the child is stopped from now on; and the pass it
    starts (`doing`), with its tracer once known."""

    answer: JobAnswer
    keep: bool
    doing: Pass
    strict: bool
    entered: float  # the child's clock when it got the job: the worker derives its fork time
    tree: ModuleTree  # what it exports, once built: kept for an answer it may never give
    limit: float  # the job's limit grown to fit the module (budget.py `Budget.scaled`)
    fake_cache: dict[str, object]  # fake-tensor cache entries it added (fake_cache.py), for the worker


ToWorker = JobOp | CancelOp  # keyed on "op"
FromWorker = ReadyEvent | FatalEvent | PartialEvent | ResultEvent  # keyed on "event"
Message = ToWorker | FromWorker | JobMessage | ChildReport


# -- encoding -------------------------------------------------------------------------------
class ProtocolError(ValueError):
    """A line that is not the message its channel carries."""


def encode(message: Message) -> bytes:
    """One line; a value JSON cannot hold (a torch object in a record) becomes its repr."""
    return (json.dumps(message, default=repr, ensure_ascii=False) + "\n").encode("utf-8")


def decode_to_worker(line: bytes | str) -> ToWorker:
    return cast(ToWorker, _decode(line, ToWorker, "engine -> worker"))


def decode_from_worker(line: bytes | str) -> FromWorker:
    return cast(FromWorker, _decode(line, FromWorker, "worker -> engine"))


def decode_job(data: bytes | str) -> JobMessage:
    return cast(JobMessage, _decode(data, JobMessage, "job"))


def decode_report(line: bytes | str) -> ChildReport:
    return cast(ChildReport, _decode(line, ChildReport, "child report"))


def checked_target(value: object) -> TargetSpec:
    """A target the server built (discovery keeps plain dicts), checked before it is sent."""
    _check(value, TargetSpec, "target", "job")
    return cast(TargetSpec, value)


def checked_verify(value: object) -> VerifySpec:
    _check(value, VerifySpec, "verify", "job")
    return cast(VerifySpec, value)


def _decode(data: bytes | str, declared: object, channel: str) -> object:
    try:
        value = json.loads(data)
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
        raise ProtocolError(f"{channel}: not a JSON line ({exc}): {_start(data)}") from None
    _check(value, declared, "message", channel, data)
    return value


def _check(value: object, declared: object, where: str, channel: str, data: bytes | str = "") -> None:
    try:
        check(value, declared, where)
    except ShapeError as exc:
        raise ProtocolError(f"{channel}: {exc}" + (f": {_start(data)}" if data else "")) from None


def _start(data: bytes | str) -> str:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return repr(text[:120] + ("..." if len(text) > 120 else ""))


# -- framing --------------------------------------------------------------------------------
def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            import select

            select.select([], [fd], [])
            continue
        view = view[written:]


class LineReader:
    """Accumulates bytes from a non-blocking fd and yields its complete, non-blank lines."""

    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, data: bytes) -> list[bytes]:
        self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        return [line for line in lines if line.strip()]
