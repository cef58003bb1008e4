"""Real model code: library base classes, relative imports, and refusals inside installed libraries.

The data files mimic what real code does (transformers-style modeling files, a
user module built on an installed library) without depending on any library:
`tests/data/realcode/fakesite/.../site-packages/tinylib` stands in for one.
"""

from __future__ import annotations

from pathlib import Path

from exportlens.discovery import discover
from exportlens.engine import Engine
from exportlens.findings import FileResult, Finding
from tests.conftest import check, line_of
from tests.paths import DATA

DATA = DATA / "realcode"
MODELING = str(DATA / "tinypkg" / "modeling_tiny.py")
USES_LIBRARY = str(DATA / "uses_library.py")
SITE = DATA / "fakesite" / "lib" / "python3.11" / "site-packages"
LIBRARY = str(SITE / "tinylib" / "__init__.py")
USES_TINYFORMERS = str(DATA / "uses_tinyformers.py")
BROKEN_KERNEL = str(DATA / "broken_kernel.py")
MODELING_QWEN2 = str(SITE / "tinyformers" / "models" / "qwen2" / "modeling_qwen2.py")


def _by_module(result: FileResult, module: str) -> list[Finding]:
    return [d for d in result.diagnostics if d.module == module]


def test_classes_built_on_imported_library_bases_are_modules() -> None:
    """`class X(PreTrainedModel)` / `(GradientCheckpointingLayer)`: the bases are imported, not defined."""
    found = discover(Path(MODELING).read_text(encoding="utf-8"), MODELING)
    names = {t.name for t in found.subjects}
    assert names == {
        "TinyMLP",
        "TinyLayer",
        "TinyPreTrainedModel",
        "TinyModel",
        "TinyForCausalLM",
        "TinyForSequenceClassification",
    }
    # Dataclass outputs and configs are not modules (no forward anywhere in their tree).
    assert "TinyOutput" not in names


def test_library_base_without_forward_in_file_is_not_a_module() -> None:
    source = """
import torch
from helpers import Registry, Base

class Plugins(Registry):
    pass

class Net(Base):
    def forward(self, x):
        return x

class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x
"""
    assert [t.name for t in discover(source).subjects] == ["Net"]


async def test_modeling_file_with_relative_imports_checks_and_reports_only_root_classes(
    engine: Engine,
) -> None:
    """A package file (`from .configuration_tiny import TinyConfig`, TYPE_CHECKING, dataclasses)
    exports through its own call with an unbounded `Dim("batch")` (its `int_oo` range once made
    ExportLens report a model torch exports as failed); of the classes without inputs only the
    head nobody builds on gets the information finding, not every building block."""
    result = await check(engine, MODELING)
    statuses = {m.name: m.status for m in result.modules}
    assert statuses["TinyForCausalLM"] == "exported"
    assert [d.code for d in result.diagnostics if d.severity == "error"] == []
    infos = [(d.code, d.module) for d in result.diagnostics]
    # The file exports TinyForCausalLM: its other classes are parts, not a missing export.
    assert infos == []


async def test_guard_added_inside_a_library_lands_on_the_user_call_with_the_library_line(
    engine: Engine,
) -> None:
    """transformers' BERT slices its position buffer (`seq <= 512`): torch names no line at all."""
    result = await check(engine, USES_LIBRARY)
    (finding,) = _by_module(result, "Encoder")
    assert finding.code == "dim-range-narrowed"
    user_line = line_of(USES_LIBRARY, "self.encoder(x)")
    assert (finding.path, finding.range.start.line) == (USES_LIBRARY, user_line)
    assert finding.fix is not None and finding.fix["suggested"] == ["seq = Dim('seq', max=16)"]
    library_line = line_of(LIBRARY, "positions = self.positions[:, : x.shape[1]]")
    assert [(r.path, r.range.start.line) for r in finding.related][-1] == (LIBRARY, library_line)
    assert "In library code: `forward` at tinylib/__init__.py:" in finding.message


async def test_refusal_inside_a_library_forward_names_the_library_line(engine: Engine) -> None:
    """The module is the library's own class: the finding sits on the export call, the related
    location and the message say which library line refused, and the detail shows its condition."""
    result = await check(engine, USES_LIBRARY)
    (finding,) = _by_module(result, "Gate")
    assert finding.code == "data-dependent-branch"
    assert (finding.path, finding.range.start.line) == (
        USES_LIBRARY,
        line_of(USES_LIBRARY, "torch.export.export(Gate()"),
    )
    assert "`x.abs().max() > 100`" in finding.message
    assert [(r.path, r.range.start.line) for r in finding.related] == [
        (LIBRARY, line_of(LIBRARY, "if x.abs().max() > 100:"))
    ]


async def test_cache_object_in_output_says_what_to_do(engine: Engine) -> None:
    """GPT-2/LLaMA/T5 with use_cache=True return a cache object torch cannot flatten."""
    result = await check(engine, USES_LIBRARY)
    (finding,) = _by_module(result, "CachedDecoder")
    assert finding.code == "unflattenable-output"
    # the forward is the library's, not in the workspace: the export call is the user's line
    assert finding.range.start.line == line_of(USES_LIBRARY, "torch.export.export(CachedDecoder()")
    assert "`tinylib.Cache`" in finding.message
    assert "use_cache=False" in finding.message
    assert "see the message" not in finding.message
    assert finding.fix is not None and finding.fix["type"] == "tinylib.Cache"
    # where the library builds it: the library's line as related information
    assert [(r.path, r.range.start.line) for r in finding.related] == [
        (LIBRARY, line_of(LIBRARY, "cache = Cache()"))
    ]


async def test_a_library_models_default_cache_names_where_the_library_builds_it(engine: Engine) -> None:
    """A Hugging Face-style causal LM (tinyformers, a transformers 4.56 stand-in) exported with its
    config's `use_cache=True`: torch names only the class it cannot flatten. The finding is on the
    user's export call; the library line that builds the cache is its related information, and the
    message names the library's version (whether its cache can be exported depends on it)."""
    result = await check(engine, USES_TINYFORMERS)
    statuses = sorted((m.name, m.status) for m in result.modules)
    without_cache = line_of(USES_TINYFORMERS, '{"use_cache": False}') + 1
    assert statuses == [("Qwen2ForCausalLM", "failed"), (f"Qwen2ForCausalLM@{without_cache}", "exported")]
    (finding,) = [d for d in result.diagnostics if d.severity == "error"]
    assert finding.code == "unflattenable-output"
    assert (finding.path, finding.range.start.line) == (
        USES_TINYFORMERS,
        line_of(USES_TINYFORMERS, "torch.export.export(model, (ids,))"),
    )
    created = line_of(MODELING_QWEN2, "    past_key_values = DynamicCache(config=self.config)")
    assert [(r.path, r.range.start.line) for r in finding.related] == [(MODELING_QWEN2, created)]
    assert "`DynamicCache` is created here" in finding.related[0].message
    assert "`tinyformers.cache_utils.DynamicCache`, from tinyformers 4.56.1" in finding.message
    assert "use_cache=False" in finding.message


async def test_library_constructor_raising_is_a_module_init_error(engine: Engine) -> None:
    """Whisper with a pad_token_id outside its vocabulary: transformers' `__init__` raises."""
    result = await check(engine, USES_LIBRARY)
    (finding,) = [d for d in result.diagnostics if d.module and d.module.startswith("Configured")]
    assert finding.code == "module-init-error"
    call_line = line_of(USES_LIBRARY, "Configured(pad_token_id=50)")
    assert finding.range.start.line == call_line
    assert (LIBRARY, line_of(LIBRARY, 'raise ValueError(f"pad_token_id')) in [
        (r.path, r.range.start.line) for r in finding.related
    ]
    # Both calls of the library class are checked: the first one exports.
    statuses = sorted((m.name, m.status) for m in result.modules if m.name.startswith("Configured"))
    assert statuses == [("Configured", "exported"), (f"Configured@{call_line + 1}", "failed")]


async def test_a_library_import_raising_while_the_script_builds_its_model_names_the_library_line(
    engine: Engine,
) -> None:
    """transformers 4.57's Mamba imports a `kernels` package built for another hub release when it is
    built: the script's line, and the library line that raised (issue 44)."""
    result = await check(engine, BROKEN_KERNEL)
    (finding,) = [d for d in result.diagnostics if d.severity == "error"]
    assert finding.code == "import-error"
    assert (finding.path, finding.range.start.line) == (
        BROKEN_KERNEL,
        line_of(BROKEN_KERNEL, "model = Scanned()"),
    )
    kernel = str(SITE / "tinylib" / "_scan_kernel.py")
    assert (kernel, line_of(kernel, "from tinylib_missing_runtime")) in [
        (r.path, r.range.start.line) for r in finding.related
    ]
    assert "In library code: `<module>` at tinylib/_scan_kernel.py:" in finding.message


def test_two_export_calls_of_one_library_model_are_two_targets() -> None:
    """A script exports the same model static, then with dynamic shapes: both are checked."""
    source = """
import torch
from somelib import Wrapper

if __name__ == "__main__":
    model = Wrapper(dim=8)
    x = torch.randn(2, 8)
    torch.export.export(model, (x,))
    torch.export.export(model, (x,), dynamic_shapes=({0: torch.export.Dim("b")},))
"""
    names = [t.name for t in discover(source).subjects]
    assert names == ["Wrapper", "Wrapper@9"]


def test_a_model_loaded_by_a_class_method_is_named_after_its_class() -> None:
    source = """
import torch
from transformers import AutoModel

if __name__ == "__main__":
    model = AutoModel.from_pretrained("prajjwal1/bert-tiny").eval()
    torch.export.export(model, (torch.randint(0, 100, (1, 8)),))
"""
    assert [t.name for t in discover(source).subjects] == ["AutoModel"]


async def test_model_hubs_are_offline_in_the_job(engine: Engine, write) -> None:
    """`from_pretrained` on an unreachable hub retried for ~50 s (past the job timeout):
    jobs read the local cache only."""
    path = write(
        "hub.py",
        """
        import os
        import torch

        class Net(torch.nn.Module):
            def forward(self, x):
                return x + 1

        if __name__ == "__main__":
            offline = [os.environ.get(k) for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")]
            if offline != ["1", "1"]:
                raise RuntimeError(f"a hub would go online: {offline}")
            torch.export.export(Net(), (torch.randn(2),))
        """,
    )
    result = await check(engine, path)
    assert [(m.name, m.status) for m in result.modules] == [("Net", "exported")], result.diagnostics


async def test_script_parsing_its_arguments_gets_its_defaults(engine: Engine, write) -> None:
    """Training / export scripts build the model from `argparse` defaults in `main()`."""
    path = write(
        "script.py",
        """
        import argparse
        import torch

        class Net(torch.nn.Module):
            def __init__(self, width):
                super().__init__()
                self.fc = torch.nn.Linear(width, 2)

            def forward(self, x):
                return self.fc(x)

        def main():
            parser = argparse.ArgumentParser()
            parser.add_argument("--width", type=int, default=8)
            args = parser.parse_args()
            model = Net(args.width).eval()
            torch.export.export(model, (torch.randn(2, args.width),))

        if __name__ == "__main__":
            main()
        """,
    )
    result = await check(engine, path)
    assert [(m.name, m.status) for m in result.modules] == [("Net", "exported")], result.diagnostics


def test_a_failure_in_exportlens_after_the_export_is_internal_not_the_models() -> None:
    """Reading a real model's program (an unbounded Dim's `int_oo` range) once raised inside
    ExportLens and was reported as the model's export-error; it is ExportLens's own failure."""
    import types

    from exportlens.diagnosis.rules import classify
    from exportlens.worker.capture.failure import describe_failure
    from exportlens.worker.job.inputs import build

    user = types.ModuleType("user")
    user.Net = object  # type: ignore[attr-defined]
    try:
        build({"kind": "not-a-kind", "class": "Net"}, user, "user.py", "")
    except ValueError as exc:
        record = describe_failure(exc, "export", None, False, "user.py")
    assert record["stage"] == "internal"
    assert classify(record, "", "").code == "internal-error"
