"""Build (module, args, kwargs, dynamic_shapes, strict) for one export target.

Four sources, decided statically by the engine's discovery:
- "export-call": the user's own `export(...)` call.  We run the statements
  that precede it in its block(s) (`prelude`, given by position; in a loop, its first pass up
  to the call: prelude.py), then evaluate the call's arguments -- never the call itself,
  nothing after it.
- "example-inputs": `Cls().example_inputs()` (or `get_example_inputs`).
- "inferred": `Cls()` with an input expression built from its first layer.
- "compile-call": the first call of an object the file compiles (`out = model(x)`): the object
  and the call's arguments, evaluated where loading stopped (before that statement), after its
  prelude as for an export call.
- "recorded": a part of a module with real inputs (built from `parent`, one of the above), fed
  random tensors like those it received there (part_inputs.py).
"""

from __future__ import annotations

import ast
import contextlib
from types import ModuleType
from typing import Any

import torch

from ..core.attempt import Attempt
from ..wire.export_call import export_argument
from ..wire.protocol import CompileCallInputs, ExportCallInputs, InputsSpec
from .prelude import find_node as _find
from .prelude import run_prelude
from .wrapper_export import function_attempt, is_library_function, wrapper_attempt


def build(spec: InputsSpec, user_module: ModuleType, path: str, tree: ast.Module) -> Attempt:
    """`tree`: the buffer's syntax tree (loader.parse), where an export call's nodes are found."""
    namespace = user_module.__dict__
    if spec["kind"] == "export-call":
        return _from_export_call(spec, dict(namespace), path, tree)
    if spec["kind"] == "compile-call":
        return _from_compiled_call(spec, dict(namespace), path, tree)
    if spec["kind"] == "recorded":
        from ..parts.part_inputs import part_attempt

        # A parent too large to allocate was checked on meta: so is the part, and what it is fed.
        with torch.device("meta") if spec.get("meta") else contextlib.nullcontext():
            return part_attempt(spec, build(spec["parent"], user_module, path, tree))
    module = namespace[spec["class"]]()
    if spec["kind"] == "example-inputs":
        return Attempt(module, *_split_inputs(getattr(module, spec["method"])()))
    if spec["kind"] == "inferred":
        value = eval(compile(spec["expr"], path, "eval"), {"torch": torch})  # noqa: S307
        return Attempt(module, *_split_inputs(value))
    raise ValueError(f"unknown inputs kind {spec['kind']!r}")


def _split_inputs(value: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Accept a tensor, a tuple of args, a dict of kwargs, or (args, kwargs)."""
    if isinstance(value, dict):
        return (), dict(value)
    if isinstance(value, list):
        value = tuple(value)
    if (
        isinstance(value, tuple)
        and len(value) == 2
        and isinstance(value[0], (tuple, list))
        and isinstance(value[1], dict)
    ):
        return tuple(value[0]), dict(value[1])
    if isinstance(value, tuple):
        return value, {}
    return (value,), {}


_PARAMETERS = ("mod", "args", "kwargs", "dynamic_shapes", "strict")


def _from_export_call(
    spec: ExportCallInputs, namespace: dict[str, Any], path: str, tree: ast.Module
) -> Attempt:
    call: ast.Call = _find(tree, ast.Call, *spec["call"])
    run_prelude(spec["prelude"], tree, path, namespace)

    def value(node: ast.expr) -> Any:
        return eval(compile(ast.Expression(body=node), path, "eval"), namespace)  # noqa: S307

    receiver = value(call.func.value) if isinstance(call.func, ast.Attribute) else None
    if not call.args and receiver is not None and not isinstance(receiver, ModuleType):
        return wrapper_attempt(  # a library wrapper's own `.export(...)`, not `torch.export.export(mod=...)`
            receiver, {k.arg: value(k.value) for k in call.keywords if k.arg}
        )
    if is_library_function(value(call.func)):  # the library wraps the model and exports it itself
        given = {k.arg: value(k.value) for k in call.keywords if k.arg}
        return function_attempt(value(call.func), [value(a) for a in call.args], given)

    # positional or keyword (`export(mod=Net(), args=(x,))`), as torch's signature takes them,
    # evaluated in the call's own order: in `export(Net(), (torch.randn(3, 8),))` the weights
    # draw from the generator before the example does, as in the user's run.
    given = {name: node for name in _PARAMETERS if (node := export_argument(call, name)) is not None}
    written = [*call.args, *(k.value for k in call.keywords)]
    got = {name: value(node) for name, node in sorted(given.items(), key=lambda g: written.index(g[1]))}
    args = got.get("args")
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = tuple(args) if isinstance(args, list) else (args,)
    return Attempt(
        got.get("mod"),
        args,
        dict(got.get("kwargs") or {}),
        got.get("dynamic_shapes"),
        bool(got["strict"]) if "strict" in given else None,
    )


def _from_compiled_call(
    spec: CompileCallInputs, namespace: dict[str, Any], path: str, tree: ast.Module
) -> Attempt:
    call: ast.Call = _find(tree, ast.Call, *spec["call"])
    run_prelude(spec.get("prelude", []), tree, path, namespace)

    def value(node: ast.expr) -> Any:
        return eval(compile(ast.Expression(body=node), path, "eval"), namespace)  # noqa: S307

    args: list[Any] = []
    for arg in call.args:
        if isinstance(arg, ast.Starred):
            args.extend(value(arg.value))
        else:
            args.append(value(arg))
    kwargs: dict[str, Any] = {}
    for keyword in call.keywords:  # `model(**batch)`: a dict of a fine-tune step's inputs, in order
        if keyword.arg is None:
            kwargs.update(value(keyword.value))
        else:
            kwargs[keyword.arg] = value(keyword.value)
    return Attempt(value(call.func), tuple(args), kwargs)
