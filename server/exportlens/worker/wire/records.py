"""What a job reports across the boundary: the failure record with its frames, the export summary.

Declared here, made in the child (failure.py, allfailures.py, summary.py, eager.py), read by the
server's diagnosis; protocol.py carries them in a `JobAnswer` and re-exports them.  Stdlib only,
TypedDicts with optional keys in `total=False` classes, as protocol.py says.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

Stage = Literal["import", "inputs", "export", "internal"]  # where in the child a failure happened


# -- a failure ------------------------------------------------------------------------------
class _FrameRequired(TypedDict):
    path: str
    line: int | None


class Frame(_FrameRequired, total=False):
    """A stack frame; columns are CPython's (UTF-8 bytes), None where the interpreter has none."""

    end_line: int | None
    col: int | None
    end_col: int | None
    name: str


class ChainedException(TypedDict):
    """One exception behind the failure (its __cause__ / __context__ chain)."""

    exc_type: str
    exc_mro: list[str]
    message: str
    frames: list[Frame]


class GuardSite(TypedDict):
    """A shape guard of a re-run export and the user frames that added it (failure.guard_sites)."""

    expr: str
    kind: Literal["eq-const", "eq-sym", "range", "ne", "other"]
    symbols: list[str]
    sources: dict[str, list[str]]  # symbol -> the inputs it stands for (`L['x'].size()[0]`)
    frames: list[Frame]


class _EagerRequired(TypedDict):
    ok: bool


class EagerVerdict(_EagerRequired, total=False):
    """Whether the module ran eagerly on the same inputs (worker/capture/eager.py)."""

    exc_type: str
    message: str


class _FailureRequired(TypedDict):
    stage: Stage
    exc_type: str
    message: str


class FailureRecord(_FailureRequired, total=False):
    """One export failure: torch's structured fields next to its text (worker/capture/failure.py)."""

    strict: bool
    exc_mro: list[str]
    frames: list[Frame]  # the traceback, outermost first
    chain: list[ChainedException]
    real_stack: list[Frame]  # a strict (dynamo) error's user stack
    gb_type: str  # a graph break's type and registry id (graph_breaks.py)
    gb_id: str
    error_type: str  # a UserError's kind: CONSTRAINT_VIOLATION, ...
    cond: str  # a data-dependent guard's condition
    op: str  # the operator without a fake kernel
    eager: EagerVerdict
    # An output torch cannot flatten: where the eager pass created that object (output_site.py).
    created_at: list[Frame]
    # Where a constraint violation's guards were added (one more export), or why not.
    guard_sites: list[GuardSite]
    guard_sites_budget: str
    guard_sites_error: str
    locate_seconds: float
    # The module's other failures (allfailures.py), and why the search stopped short.
    more: list[FailureRecord]
    more_truncated: str
    more_error: str
    more_skipped: Literal["meta", "device"]  # meta weights, fake accelerator tensors: no values
    placement: Placement  # where the job's tensors were (devices.py)
    prefill_tokens: int  # inputs with a `cache_position`: the prefill refused, with this many tokens
    memory_limit_mb: int  # the address-space cap it ran under, when one was set (diagnosis/memory.py)
    # The `return` that built an output torch cannot flatten, seen in the eager pass (output_site.py).
    output_site: Frame
    # Set on a record the search found: how (a retrace on real values, dynamo's graph breaks for a
    # strict module), and what torch reported.
    found_by: Literal["real-tensor-propagation", "dynamo-graph-breaks"]
    draft_failure_type: str
    example_value: str


# -- an export ------------------------------------------------------------------------------
class SignatureEntry(TypedDict):
    kind: str  # torch's InputKind / OutputKind, lower case
    name: str
    target: str | None


class DynamicDim(TypedDict):
    input: str
    dim: int
    symbol: str
    min: int | None
    max: int | None


class CaughtWarning(TypedDict):
    category: str
    message: str
    path: str
    line: int


class GraphOp(TypedDict, total=False):
    """An op of the graph that the caller-side baked-in checks confirm against."""

    op: str
    input: str  # the user input it writes to
    module: str
    module_class: str
    path: str | None
    line: int | None
    built: list[Frame]  # a training-mode op's layer: the frames that built it (layer_sites.py)


class GraphFacts(TypedDict, total=False):
    training_ops: list[GraphOp]
    input_mutations: list[GraphOp]
    unused_ops: list[GraphOp]
    op_names: list[str]
    error: str  # instead of the above: reading the graph failed


class Narrowing(TypedDict):
    """A shape condition the exported program checks that rejects sizes its Dims declare (narrowing.py)."""

    expr: str  # torch's (sympy) condition
    shown: str  # with the inputs' dims for its symbols: `((x.shape[3]//32))*((x.shape[2]//32)) == 4`
    dim: str  # a dim that has a rejected size: `x.shape[2]`
    rejected: int  # that size: inside the dim's range, the program rejects it
    example: int  # the dim's example size (accepted)
    min: int | None  # the dim's range in the program
    max: int | None
    frames: list[Frame]  # the stack that made the condition, outermost first; [] when not found


class _DecodeStepRequired(TypedDict):
    """The prefill's program refused one decode step: one token at the next cache position."""

    position: int  # the cache position of the one token (the prompt's length)
    tokens: str  # the argument that carries the tokens: `input_ids` / `inputs_embeds`
    exc_type: str
    message: str
    # The module itself at that step (eager): "fails" is the model's, "runs" the program's shapes.
    eager: Literal["runs", "fails", "not run"]
    frames: list[Frame]  # the eager failure's traceback, outermost first; [] unless it fails


class DecodeStep(_DecodeStepRequired, total=False):
    eager_message: str  # what the eager step raised (`IndexError: ...`), when it fails


class _WeightsRequired(TypedDict):
    meta: bool  # built on the meta device (sizing.py): nothing allocated
    bytes: int


class Weights(_WeightsRequired, total=False):
    # The module's own code left some weights on the meta device (`torch.device("meta")`,
    # `.to("meta")`): exported without values too.
    code_meta: bool


class Placement(TypedDict):
    """Where a job's tensors were (worker/job/devices.py)."""

    policy: Literal["fake", "real", "cpu"]
    devices: list[str]  # the accelerator devices the code asked for (`cuda:0`)
    fake: bool  # some were fake tensors on them: no values, nothing allocated


class AskedDevice(TypedDict):
    """Where the user's code asked whether a GPU is there, and this machine said no (devices.py)."""

    path: str
    line: int
    question: str  # as written: `torch.cuda.is_available()`


class _GpuPathRequired(TypedDict):
    asked: list[AskedDevice]
    status: Literal["exported", "failed", "same", "not-checked"]


class GpuPath(_GpuPathRequired, total=False):
    """The second look, at the path a machine with a GPU takes (gpu_path.py): "same" when it puts
    nothing on a device; "failed" with torch's refusal there; "not-checked" with why."""

    failure: FailureRecord
    # Torch exported it, but this op meets tensors on two devices (its fake kernel does not check).
    unchecked_op: str
    reason: str
    seconds: float


class ViewFrame(TypedDict):
    """A user frame of a node's stack (outside torch)."""

    path: str
    line: int
    name: str
    code: str  # the statement's text on that line, stripped


class _ViewNodeRequired(TypedDict):
    id: str  # unique: a branch's nodes are prefixed by their branch id
    name: str
    # parameter, buffer, constant, user_input | op | user_output, buffer_mutation, ...
    # (torch's OutputKind, lower case) | branch_input, branch_output
    kind: str
    op: str  # `aten.linear.default`, `cond`, `getitem`, `placeholder`, `output`
    inputs: list[str]  # ids, in argument order
    shape: str  # `[s0, 16]`, `([2, 3], [2])`, '' when not a tensor
    dtype: str
    module: list[str]  # nn_module_stack, outermost first: `blocks.0`, `blocks.0.attn`
    branch: str | None  # the ViewBranch it belongs to


class ViewNode(_ViewNodeRequired, total=False):
    target: str  # an input's parameter/buffer name, an output's mutated buffer
    path: str  # its site: the innermost user frame (in the exported file when there is one)
    line: int
    code: str
    stack: list[ViewFrame]  # user frames, outermost first


class ViewBranch(TypedDict):
    """One subgraph of a higher-order op (cond's true/false graph, map's body, ...)."""

    id: str
    op: str  # the id of the higher-order op's node
    name: str  # `true_graph_0`


class _GraphViewRequired(TypedDict):
    nodes: list[ViewNode]  # graph order (data order), branches after their op
    branches: list[ViewBranch]
    modules: dict[str, str]  # submodule path -> class name
    total: int
    truncated: bool  # more than graph_json.NODE_LIMIT nodes: the first ones only


class GraphView(_GraphViewRequired, total=False):
    """The exported program as a graph to draw (worker/capture/graph_json.py)."""

    error: str  # reading the graph failed: nodes is empty


class _SummaryRequired(TypedDict):
    ops: int
    code: str  # the graph module's Python text
    code_truncated: bool
    inputs: list[SignatureEntry]
    outputs: list[SignatureEntry]
    dynamic: list[DynamicDim]
    lines: dict[str, dict[str, list[str]]]  # file -> line -> aten ops
    warnings: list[CaughtWarning]
    facts: GraphFacts


class ExportSummary(_SummaryRequired, total=False):
    weights: Weights
    placement: Placement
    view: GraphView
    gpu_path: GpuPath  # the script asked whether a GPU is there, and this machine said no
    narrowed: list[Narrowing]  # runtime shape checks that reject sizes the Dims declare
    decode_step: DecodeStep  # an export with a cache whose program refuses the next token


# -- a lowering after the export (lowering/, issue 17) ----------------------------------------
class LoweringFinding(TypedDict, total=False):
    """One refusal of a target, on the user's line that produced the graph node."""

    code: str  # docs/codes.md
    severity: Literal["error", "warning", "information"]
    message: str
    frames: list[Frame]  # from the node's stack trace, outermost first; the user's frames among them
    node: str  # the graph node's name
    op: str  # its target (`aten.foo.default`)


class _LoweringResultRequired(TypedDict):
    target: str  # one of exportlens.lowerings.LOWERINGS
    ok: bool


class LoweringResult(_LoweringResultRequired, total=False):
    seconds: float
    findings: list[LoweringFinding]
    facts: dict[str, Any]  # for hover: ONNX opset, op count, model size, compile time, package size
    skipped: str  # why the target did not run (a package missing): said as information
    internal: str  # the lowering's own error: logged, never a user's error


# -- the inputs a part of the module received (part_inputs.py) -----------------------------
class _PartDimRequired(TypedDict):
    name: str  # the Dim's name (`batch`), `auto<n>` / `dynamic<n>` for a hint, `2*seq+1` derived
    hint: Literal["dim", "auto", "dynamic", "derived"]  # Dim(name, min, max), Dim.AUTO, ..., k*root+c
    size: int  # its example size in the parent's inputs (derived: in the part's)
    min: int | None
    max: int | None


class PartDim(_PartDimRequired, total=False):
    """A dynamic dim of the parent's inputs that a part's dim follows (part_dims.py confirms it)."""

    root: str  # derived: k * root + c, `root` a plain Dim of the parent (also in the record's dims)
    k: int
    c: int


class _PartRequired(TypedDict):
    module: str  # where the parent holds it (`blocks.0.attn`)
    args: list[Any]  # structure nodes (part_inputs.py's docstring)
    kwargs: dict[str, Any]
    dims: dict[str, PartDim]  # the Dims its tensors' `dims` name


_PartClass = TypedDict("_PartClass", {"class": str})  # the class's name ("class" is a keyword)


class PartInputs(_PartRequired, _PartClass, total=False):
    """What the first call of a part class received while its parent ran."""

    file: str  # the resolved path of the workspace file that defines the class
    unsupported: str  # an argument that cannot be rebuilt: no check of its own
    meta: bool  # the parent was built on the meta device (sizing.py): no values, no allocation


# -- the class a job exports and the workspace classes in its module (module_tree.py) -------
TreeClass = TypedDict("TreeClass", {"class": str, "file": str | None})  # file: None outside the workspace


class ModuleTree(TypedDict):
    root: TreeClass  # the exported object's class
    parts: list[TreeClass]  # the workspace classes among its submodules, each once
