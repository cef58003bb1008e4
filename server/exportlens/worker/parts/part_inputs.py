"""The inputs each part of a module really gets: recorded while the module runs, rebuilt to check it.

A class of the workspace (the user's file, or another workspace file it imports: `blocks.py`
beside `model.py`) that is only part of another module (`SelfAttention` inside `Block`) has no
inputs of its own, and a guess from its first layer is often wrong (a 2-D tensor for
`B, T, C = x.shape`). While a module with real inputs is checked, forward pre-hooks record what
each such submodule receives, the first call per class: the structure of its arguments, each
tensor's shape and dtype (and the range of an integer tensor's values), each other value as is.

Which dims are symbolic: the parent's `dynamic_shapes` name a `Dim` (or `Dim.AUTO` /
`Dim.DYNAMIC`) per dynamic input dim. A part's dim follows one when it changes with it: a second
pass on the parent's inputs narrowed along its Dims tells (part_dims.py); sizes alone cannot (a
batch of 2 and 2 heads). A part is checked with only the Dims that pass confirmed.

The hooks run in an eager pass of their own, after the parent's export (or in the eager pass a
failure already makes, eager.py), and are removed when it ends: the exported graph never sees
them, and what an eager run changes (BatchNorm statistics, counters) cannot change that export.

Structure nodes (JSON): {"tensor": {"shape", "dtype", "dims", "low"?, "high"?}}, {"value": v},
{"tuple": [node, ...]}, {"list": [node, ...]}, {"dict": [[key, node], ...]}.
"""

from __future__ import annotations

import contextlib
import inspect
from pathlib import Path
from typing import Any

import torch

from ..core.attempt import Attempt
from ..core.budget import Budget, OutOfBudget
from ..wire.records import PartDim, PartInputs
from .module_tree import Workspace
from .part_dims import ParentDims, confirm, derived_roots, drop_derived, narrowed, parent_dims, settle

_SCALARS = (int, float, bool, str, type(None))
REAL = ("export-call", "example-inputs")  # inputs the user wrote: what their parts receive is real


class Unsupported(Exception):
    """A value a part receives that cannot be rebuilt from its description."""


# -- recording ------------------------------------------------------------------------------
class PartRecorder:
    """Hooks on the submodules whose class a workspace file defines; `run` makes its own pass."""

    def __init__(self, attempt: Attempt, job: Any) -> None:
        self.attempt = attempt
        self.records: dict[str, PartInputs] = {}
        self.ran = False
        root = attempt.module
        where = _Workspace(job)
        self.parts = [
            (name, m, file)
            for name, m in root.named_modules()
            if name and type(m) is not type(root) and (file := where.file_of(type(m))) is not None
        ]
        self.dims = parent_dims(attempt) if self.parts else ParentDims()
        self.confirmed = not self.dims.by_name  # no Dims: nothing to confirm
        self._into = self.records  # where the hooks describe what they see
        self._handles: dict[str, list[Any]] = {}

    def __enter__(self) -> PartRecorder:
        self.ran = True  # a pass under the hooks: what it did not reach, another would not either
        for name, module, file in self.parts:
            handle = module.register_forward_pre_hook(self._hook(type(module), name, file), with_kwargs=True)
            self._handles.setdefault(_key(type(module), file), []).append(handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for handles in self._handles.values():
            for handle in handles:
                handle.remove()
        self._handles.clear()

    def _hook(self, cls: type, path: str, file: str) -> Any:
        key = _key(cls, file)

        def hook(module: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
            if key not in self._into:
                record = describe(cls.__qualname__, path, args, kwargs, self.dims.by_size())
                record["file"] = file
                if self.attempt.meta:
                    record["meta"] = True
                self._into[key] = record
                for handle in self._handles.get(key, []):  # the first call per class is enough
                    handle.remove()

        return hook

    def run(self) -> None:
        """A pass of its own (when no eager pass ran under the hooks); its failure keeps what it saw."""
        if not self.parts or self.ran or _fake(self.attempt):
            return
        # An eager failure keeps the parts called before it.
        with self, torch.no_grad(), contextlib.suppress(Exception):
            self.attempt.module(*self.attempt.args, **(self.attempt.kwargs or {}))

    def confirm(self) -> None:
        """Which dims follow the parent's Dims: a second pass on narrowed inputs (part_dims.py)."""
        deltas = self.dims.deltas()
        if self.confirmed or not self.records or not deltas:
            return
        second = self._narrowed_pass(deltas)
        for key, record in self.records.items():
            confirm(record, second.get(key), self.dims, deltas)
        for root in derived_roots(list(self.records.values())):  # a third pass per such Dim
            step = 2 * deltas[root]
            third = self._narrowed_pass({root: step}) if self.dims.by_name[root]["size"] - step >= 2 else {}
            for key, record in self.records.items():
                settle(record, third.get(key), root, step, self.dims)
        for record in self.records.values():
            drop_derived(record)
        self.confirmed = True

    def _narrowed_pass(self, deltas: dict[str, int]) -> dict[str, PartInputs]:
        """What the parts receive when the parent runs on its inputs narrowed by `deltas`."""
        args, kwargs = narrowed(self.attempt, self.dims, deltas)
        seen: dict[str, PartInputs] = {}
        self._into = seen
        try:
            with self, torch.no_grad(), contextlib.suppress(Exception):
                self.attempt.module(*args, **kwargs)
        finally:
            self._into = self.records
        return seen

    def found(self) -> list[PartInputs]:
        """The records; a Dim no second pass confirmed is dropped (the part is checked static)."""
        if not self.confirmed:
            for record in self.records.values():
                confirm(record, None, self.dims, {})
        return list(self.records.values())


def record_parts(
    job: Any, attempt: Attempt | None, budget: Budget, recorder: PartRecorder | None = None
) -> list[PartInputs]:
    """What the parts of a module with real inputs received: `recorder`'s, else a pass of its own
    (bounded to half the time left: the failure or the export is already known)."""
    if attempt is None or job["target"]["inputs"]["kind"] not in REAL or not job.get("parts_from"):
        return []
    recorder = recorder or PartRecorder(attempt, job)
    try:
        with budget.bounded(share=0.5):
            recorder.run()
            recorder.confirm()
    except OutOfBudget:
        pass
    return recorder.found()


def recorder_for(job: Any, attempt: Attempt) -> PartRecorder | None:
    """Hooks for an eager pass the child makes anyway (eager.py), for a module with real inputs."""
    if job["target"]["inputs"]["kind"] not in REAL or not job.get("parts_from"):
        return None
    return PartRecorder(attempt, job)


def _key(cls: type, file: str) -> str:
    return f"{file}::{cls.__qualname__}"


class _Workspace(Workspace):
    """Which classes are recorded: those of the files the job names (`parts_from`: the checked
    file, workspace files it imports), each a workspace file (module_tree.py). None named:
    nothing is recorded, and no pass runs."""

    def __init__(self, job: Any) -> None:
        super().__init__(job)
        self.wanted = {str(Path(p).resolve()) for p in job.get("parts_from") or ()}

    def file_of(self, cls: type) -> str | None:
        file = super().file_of(cls)
        return file if file in self.wanted else None


def _fake(attempt: Attempt) -> bool:
    """Inputs made as fake tensors (an accelerator this machine lacks, devices.py): nothing runs them."""
    from torch._subclasses.fake_tensor import FakeTensor

    leaves = [*attempt.args, *(attempt.kwargs or {}).values(), next(attempt.module.parameters(), None)]
    return any(isinstance(v, FakeTensor) for v in leaves)


def describe(
    cls: str, path: str, args: tuple[Any, ...], kwargs: dict[str, Any], dims: dict[int, PartDim]
) -> PartInputs:
    used: dict[str, PartDim] = {}
    record: PartInputs = {"class": cls, "module": path, "args": [], "kwargs": {}, "dims": used}
    try:
        record["args"] = [_node(a, dims, used) for a in args]
        record["kwargs"] = {str(k): _node(v, dims, used) for k, v in kwargs.items()}
    except Unsupported as exc:
        record["unsupported"] = str(exc)[:300]
    return record


def _node(value: Any, dims: dict[int, PartDim], used: dict[str, PartDim]) -> dict[str, Any]:
    if isinstance(value, torch.Tensor):
        names: list[str | None] = []
        for size in value.shape:
            dim = dims.get(int(size))
            names.append(dim["name"] if dim else None)
            if dim:
                used[dim["name"]] = dim
        tensor: dict[str, Any] = {
            "shape": [int(s) for s in value.shape],
            "dtype": str(value.dtype).removeprefix("torch."),
            "dims": names,
        }
        if not value.dtype.is_floating_point and not value.dtype.is_complex and not value.is_meta:
            if value.numel():
                tensor["low"], tensor["high"] = int(value.min()), int(value.max())
        return {"tensor": tensor}
    if isinstance(value, _SCALARS):
        return {"value": value}
    if type(value) in (tuple, list):
        return {type(value).__name__: [_node(v, dims, used) for v in value]}
    if type(value) is dict and all(isinstance(k, str) for k in value):
        return {"dict": [[k, _node(v, dims, used)] for k, v in value.items()]}
    raise Unsupported(f"a {type(value).__name__} argument")


# -- rebuilding -----------------------------------------------------------------------------
def part_attempt(record: Any, parent: Attempt) -> Attempt:
    """The part as the parent holds it, fed random tensors of the recorded shapes, Dims matching."""
    module = parent.module.get_submodule(record["module"])
    dims = {name: _make_dim(d) for name, d in record["dims"].items() if d["hint"] != "derived"}
    for name, d in record["dims"].items():
        if d["hint"] == "derived":  # torch's derived Dim: k * root + c
            scaled = dims[d["root"]] if d["k"] == 1 else d["k"] * dims[d["root"]]
            dims[name] = scaled + d["c"] if d["c"] else scaled
    args, arg_specs = (
        zip(*(_value(n, dims) for n in record["args"]), strict=True) if record["args"] else ((), ())
    )
    kwargs, kwarg_specs = {}, {}
    for key, node in record["kwargs"].items():
        kwargs[key], kwarg_specs[key] = _value(node, dims)
    dynamic = None
    if dims:
        bound = inspect.signature(module.forward).bind(*arg_specs, **kwarg_specs)
        dynamic = dict(bound.arguments)
    return Attempt(module, tuple(args), kwargs, dynamic, parent.strict, bool(record.get("meta")), 0)


def _make_dim(dim: PartDim) -> Any:
    from torch.export import Dim

    if dim["hint"] == "auto":
        return Dim.AUTO
    if dim["hint"] == "dynamic":
        return Dim.DYNAMIC
    bounds = {k: v for k in ("min", "max") if (v := dim.get(k)) is not None}
    return Dim(dim["name"], **bounds)  # type: ignore[arg-type]


def _value(node: dict[str, Any], dims: dict[str, Any]) -> tuple[Any, Any]:
    """(the value, its dynamic_shapes entry)."""
    if "tensor" in node:
        t = node["tensor"]
        dtype = getattr(torch, t["dtype"])
        shape = t["shape"]
        if dtype.is_floating_point or dtype.is_complex:
            value = torch.randn(shape).to(dtype)  # float8 and other dtypes randn has no kernel for
        elif dtype == torch.bool:
            value = torch.randint(0, 2, shape).bool()
        else:
            value = torch.randint(t.get("low", 0), t.get("high", 1) + 1, shape, dtype=dtype)
        marked = {i: dims[name] for i, name in enumerate(t["dims"]) if name is not None}
        return value, (marked or None)
    if "value" in node:
        return node["value"], None
    if "dict" in node:
        pairs = [(k, _value(v, dims)) for k, v in node["dict"]]
        return {k: v for k, (v, _) in pairs}, {k: s for k, (_, s) in pairs}
    kind = "tuple" if "tuple" in node else "list"
    items = [_value(v, dims) for v in node[kind]]
    values, specs = [v for v, _ in items], [s for _, s in items]
    return (tuple(values), tuple(specs)) if kind == "tuple" else (values, specs)
