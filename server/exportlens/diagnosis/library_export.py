"""What the installed transformers offers for exporting with a cache (issue 44), read from its own
code: never imported (the server imports no user library) and never from a table of versions.

A causal LM returns its `DynamicCache`, which torch cannot flatten. `use_cache=False` exports, but a
model without its cache generates in quadratic time; transformers ships the way out in
`transformers/integrations/executorch.py`, whose names and requirements changed across releases
(`TorchExportableModuleForDecoderOnlyLM`, `TorchExportableModuleWithStaticCache`,
`export_with_dynamic_cache`, `register_dynamic_cache_export_support`). This module parses that
file of the user's installed transformers (the one the failing frames ran) and words the advice
from what it defines: the wrapper's arguments, and the `generation_config` values its constructor
asserts.
"""

from __future__ import annotations

import ast
import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..worker.wire.records import FailureRecord

_PACKAGE = re.compile(r"^(?P<package>.*/(?:site|dist)-packages/transformers)/")
WRAPPERS = ("TorchExportableModuleForDecoderOnlyLM", "TorchExportableModuleWithStaticCache")
DYNAMIC = ("export_with_dynamic_cache", "register_dynamic_cache_export_support")
SEQ2SEQ = (
    "Seq2SeqLMExportableModule"  # an encoder-decoder (T5, Whisper): encoder + decoder with a static cache
)
SEQ2SEQ_CACHES = ("EncoderDecoderCache",)  # what such a model returns


@dataclass(frozen=True)
class ExportRecipes:
    """What `transformers.integrations.executorch` defines, in the installed copy."""

    wrapper: str | None  # the decoder-only wrapper with a static cache
    wrapper_arguments: tuple[str, ...]  # its constructor's, besides `model` (batch_size, max_cache_len…)
    requires: tuple[tuple[str, str], ...]  # generation_config attribute -> the value it must have
    dynamic: tuple[str, ...]  # the DynamicCache helpers it has
    seq2seq_arguments: tuple[str, ...] | None = None  # SEQ2SEQ's constructor's, when it is defined
    export_arguments: tuple[str, ...] = ()  # the wrapper's `.export(...)`'s (input_ids, cache_position…)


def transformers_folder(record: FailureRecord) -> str | None:
    """The installed transformers package the failure ran in (from its frames), else None."""
    frames = [*(record.get("created_at") or []), *(record.get("frames") or [])]
    for frame in frames:
        match = _PACKAGE.match(str(frame.get("path", "")))
        if match:
            return match["package"]
    return None


def recipes(package: str) -> ExportRecipes | None:
    """The recipes of the transformers at `package`; None when it has no executorch integration."""
    path = Path(package) / "integrations" / "executorch.py"
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        return None
    return _read(str(path), stamp)


@functools.lru_cache(maxsize=8)
def _read(path: str, _stamp: int) -> ExportRecipes | None:
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None
    defined = {n.name: n for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    wrapper = next((w for w in WRAPPERS if w in defined), None)
    arguments: tuple[str, ...] = ()
    exports: tuple[str, ...] = ()
    if wrapper is not None and isinstance(node := defined[wrapper], ast.ClassDef):
        arguments = _init_arguments(node)
        exports = _init_arguments(node, "export")
    static = defined.get("TorchExportableModuleWithStaticCache")
    requires = _required_generation_config(static) if isinstance(static, ast.ClassDef) else ()
    seq2seq = defined.get(SEQ2SEQ)
    encoder_decoder = _init_arguments(seq2seq) if isinstance(seq2seq, ast.ClassDef) else None
    dynamic = tuple(n for n in DYNAMIC if n in defined)
    return ExportRecipes(wrapper, arguments, requires, dynamic, encoder_decoder, exports)


def _init_arguments(cls: ast.ClassDef, method: str = "__init__") -> tuple[str, ...]:
    init = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == method), None)
    if init is None:
        return ()
    names = [a.arg for a in init.args.args + init.args.kwonlyargs]
    return tuple(n for n in names if n not in ("self", "model", "device"))


def _required_generation_config(cls: ast.ClassDef) -> tuple[tuple[str, str], ...]:
    """`if generation_config.cache_implementation != "static": raise ...` -> (attr, "static");
    `if not generation_config.use_cache: raise ...` -> (attr, "True")."""
    found: dict[str, str] = {}
    for node in ast.walk(cls):
        if not isinstance(node, ast.If) or not any(isinstance(s, ast.Raise) for s in node.body):
            continue
        test = node.test
        if (
            isinstance(test, ast.Compare)
            and isinstance(test.ops[0], ast.NotEq)
            and isinstance(constant := test.comparators[0], ast.Constant)
            and (attr := _generation_config_attr(test.left))
        ):
            found[attr] = repr(constant.value).replace("'", '"')
        elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            if attr := _generation_config_attr(test.operand):
                found[attr] = "True"
    return tuple(found.items())


def _generation_config_attr(node: ast.expr) -> str | None:
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "generation_config"
    ):
        return node.attr
    if isinstance(node, ast.Attribute) and ast.unparse(node.value).endswith(".generation_config"):
        return node.attr
    return None


def cache_advice(found: ExportRecipes | None, version: str | None, cache: str = "DynamicCache") -> str:
    """The fix for a returned transformers cache, best first; `use_cache=False` last, with its cost.
    An encoder-decoder's cache (`EncoderDecoderCache`) gets the seq2seq wrapper, not the decoder-only one."""
    installed = f"transformers {version}" if version else "the installed transformers"
    ways: list[str] = []
    if cache in SEQ2SEQ_CACHES:
        if found is not None and found.seq2seq_arguments is not None:
            sized = ("batch_size", "max_hidden_seq_length", "max_cache_length")
            arguments = ", ".join(f"{a}=…" for a in found.seq2seq_arguments if a in sized)
            given = f"model, {arguments}" if arguments else "model"
            call = f"`transformers.integrations.executorch.{SEQ2SEQ}({given})`"
            ways.append(
                f"keep the cache: {installed} exports a text encoder-decoder (an encoder that takes "
                f"`input_ids`, as T5's and BART's do; not Whisper's audio features) as its encoder and a "
                f"decoder step with a static cache through {call} and its `.export(...)`"
            )
        ways.append(
            "last, `use_cache=False` (the config or the call): it exports, but generation then recomputes "
            "the whole decoded sequence for every token"
        )
        return "; or ".join(ways)
    if found is not None and found.wrapper:
        arguments = ", ".join(
            f"{a}=…" for a in found.wrapper_arguments if a in ("batch_size", "max_cache_len")
        )
        given = f"model, {arguments}" if arguments else "model"
        call = f"`transformers.integrations.executorch.{found.wrapper}({given})`"
        needs = ", ".join(f"`model.generation_config.{a} = {v}`" for a, v in found.requires)
        takes = found.export_arguments
        shown = ", ".join(f"{a}=…" for a in ("input_ids", "cache_position", "dynamic_shapes") if a in takes)
        ways.append(
            f"keep the cache: {installed} exports a decoder-only LM with a static cache through {call}"
            + (f" and its `.export({shown})`" if "cache_position" in takes else "")
            + (f" (its constructor asserts {needs})" if needs else "")
            + (
                "; one Dim for the sequence on `input_ids` dim 1 and `cache_position` dim 0 (max below"
                " `max_cache_len`) lets that program take the one-token decode step as well as the prompt"
                if "cache_position" in takes
                else f"; no rewrite is offered: {_undriven(found.wrapper, takes)}"
            )
        )
    if found is not None and found.dynamic:
        named = " / ".join(f"`transformers.integrations.executorch.{n}`" for n in found.dynamic)
        ways.append(f"to keep a `DynamicCache` as an input and output, {named}")
    ways.append(
        "last, `use_cache=False` (the config or the call): it exports, but generation then recomputes "
        "the whole sequence for every token"
    )
    return "; or ".join(ways)


def _undriven(wrapper: str, takes: tuple[str, ...]) -> str:
    """Why this copy's wrapper cannot be driven for a decode step: generation feeds its program one
    token at the next cache position, and an export with no `cache_position` has no input for it
    (a `past_key_values` argument is the cache itself, which a static cache keeps as buffers)."""
    if not takes:
        return f"this copy's `{wrapper}` has no `.export(...)`, so there is no call taking a `cache_position`"
    given = ", ".join(f"`{a}`" for a in takes)
    return (
        f"this copy's `{wrapper}.export(...)` takes {given} and no `cache_position`, so the program it "
        "makes cannot be fed the decode step's next position, and a rewrite to it cannot be proven past "
        "the prompt"
    )
