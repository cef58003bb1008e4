"""`.export(input_ids=...)` is transformers' wrapper's own export only on an instance of the wrapper:
a name the file binds to `TorchExportableModuleForDecoderOnlyLM(...)` only, or that construction
itself. Another object's `.export(input_ids=...)` in a file that imports the wrapper (a tokenizer
service, an ONNX helper) is not an export call: not a subject, not where loading stops."""

from __future__ import annotations

import ast

from exportlens.discovery import discover
from exportlens.discovery.export_calls import load_stop
from exportlens.syntax import torch_imports

HEAD = """\
import torch
from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM as Wrapper
from mytools import Exporter

model = build()
ids = torch.randint(0, 128, (1, 8))
"""


def _calls(source: str) -> list[int]:
    """The lines of the export calls discovery checks."""
    return sorted(t.call.lineno for t in discover(source).subjects if t.call is not None)


def test_only_the_wrappers_instance_is_the_librarys_export() -> None:
    source = HEAD + (
        "other = Exporter()\n"
        "other.export(input_ids=ids)\n"  # line 8: another object's method
        "wrapper = Wrapper(model, batch_size=1, max_cache_len=32)\n"
        "program = wrapper.export(input_ids=ids)\n"  # line 10: the wrapper's
    )
    assert _calls(source) == [10]
    tree = ast.parse(source)
    stop = load_stop(tree, torch_imports(tree))
    assert stop is not None and stop.lineno == 10, "loading runs past the other object's call"


def test_a_name_bound_to_something_else_too_is_not_taken_for_the_wrapper() -> None:
    rebound = HEAD + "w = Wrapper(model)\nw = Exporter()\nw.export(input_ids=ids)\n"
    unpacked = HEAD + "w, spare = Exporter(), Wrapper(model)\nw.export(input_ids=ids)\n"
    the_class = HEAD + "Wrapper.export(input_ids=ids)\n"
    assert [_calls(s) for s in (rebound, unpacked, the_class)] == [[], [], []]


def test_the_construction_and_a_wrapper_built_in_a_function_are() -> None:
    built = HEAD + "Wrapper(model, max_cache_len=32).export(input_ids=ids)\n"
    in_function = HEAD + (
        "def export_it():\n"
        "    wrapper = Wrapper(model, max_cache_len=32)\n"
        "    return wrapper.export(input_ids=ids)\n"
    )
    assert [_calls(s) for s in (built, in_function)] == [[7], [9]]
