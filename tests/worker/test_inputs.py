"""Where example inputs come from, checked through the real worker."""

from __future__ import annotations

from pathlib import Path

from exportlens.check import CheckOptions, check_file
from exportlens.discovery import discover
from exportlens.engine import Engine
from tests.conftest import check, line_of, only


async def test_export_call_in_main_with_dynamic_shapes(engine: Engine, write) -> None:
    path = write(
        "main_call.py",
        """
        import torch
        from torch.export import Dim, export

        class Net(torch.nn.Module):
            def __init__(self, width):
                super().__init__()
                self.fc = torch.nn.Linear(width, 3)

            def forward(self, x):
                assert __name__ != "__main__"
                return self.fc(x)

        if __name__ == "__main__":
            width = 5
            batch = Dim("batch", min=2, max=32)
            model = Net(width).eval()
            ep = export(model, (torch.randn(4, width),), dynamic_shapes={"x": {0: batch}})
            raise SystemExit("statements after the call never run")
    """,
    )
    result = await check(engine, path)
    (module,) = result.modules
    assert (module.name, module.inputs, module.status) == ("Net", "export-call", "exported")
    assert module.graph is not None
    assert [(d["input"], d["dim"], d["min"], d["max"]) for d in module.graph["dynamic"]] == [("x", 0, 2, 32)]
    assert result.diagnostics == []


async def test_export_call_inside_a_function_and_strict_kwarg(engine: Engine, write) -> None:
    path = write(
        "func_call.py",
        """
        import torch

        class Doubler(torch.nn.Module):
            def forward(self, x):
                return x * 2

        def export_it():
            example = (torch.ones(2, 2),)
            return torch.export.export(Doubler(), example, strict=True)
    """,
    )
    result = await check(engine, path)
    (module,) = result.modules
    assert (module.inputs, module.status, module.mode) == ("export-call", "exported", "strict")


async def test_a_call_chained_on_the_export_or_compiled_call_is_not_taken_for_it(
    engine: Engine, write
) -> None:
    """`export(m, args).run_decompositions()` and `model(x).sum()` start where the call they chain
    on starts: the job names its call by its whole span (it took the outer one: an `inputs-error`
    for the export, the compiled model's break unseen)."""
    path = write(
        "chained.py",
        """
        import torch

        class Gate(torch.nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    return x * 2
                return x

        class Scale(torch.nn.Module):
            def forward(self, x):
                top = x.abs().max().item()
                return x / (top + 1.0)

        if __name__ == "__main__":
            program = torch.export.export(Gate(), (torch.randn(2, 8),)).run_decompositions()
            model = torch.compile(Scale())
            for step in range(100):
                loss = model(torch.randn(2, 8)).sum()
    """,
    )
    result = await check(engine, path)
    modules = [(m.name, m.inputs) for m in result.modules]
    assert modules == [("Gate", "export-call"), ("Scale", "compile-call")]
    assert only(result, "data-dependent-branch").range.start.line == line_of(path, "if x.sum() > 0")
    assert only(result, "compile-graph-break").range.start.line == line_of(path, ".item()")
    assert "inputs-error" not in [d.code for d in result.diagnostics]


async def test_script_style_top_level_export_is_not_run_at_load(engine: Engine, write) -> None:
    path = write(
        "script.py",
        """
        import torch

        class Tanh(torch.nn.Module):
            def forward(self, x):
                return x.tanh()

        ep = torch.export.draft_export(Tanh(), (torch.ones(3),))
        raise RuntimeError("after the export call: must not run")
    """,
    )
    result = await check(engine, path)
    assert [(m.name, m.inputs, m.status) for m in result.modules] == [("Tanh", "export-call", "exported")]


async def test_example_inputs_methods(engine: Engine, write) -> None:
    path = write(
        "methods.py",
        """
        import torch

        class WithArgs(torch.nn.Module):
            def forward(self, x, y):
                return x + y

            def example_inputs(self):
                return (torch.ones(2), torch.ones(2))

        class WithKwargs(torch.nn.Module):
            def forward(self, *, tokens):
                return tokens.float().mean()

            def get_example_inputs(self):
                return {"tokens": torch.arange(6)}
    """,
    )
    result = await check(engine, path)
    assert [(m.name, m.inputs, m.status) for m in result.modules] == [
        ("WithArgs", "example-inputs", "exported"),
        ("WithKwargs", "example-inputs", "exported"),
    ]


async def test_inferred_inputs_from_first_layer(engine: Engine, write) -> None:
    path = write(
        "inferred.py",
        """
        import torch
        from torch import nn

        HIDDEN = 12

        class Vision(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 8, kernel_size=3)
                self.pool = nn.AdaptiveAvgPool2d(1)

            def forward(self, image):
                return self.pool(self.conv(image)).flatten(1)

        class Tokens(nn.Module):
            def __init__(self, vocab=100, dim=HIDDEN):
                super().__init__()
                self.embed = nn.Embedding(vocab, dim)
                self.head = nn.Linear(dim, 2)

            def forward(self, ids):
                return self.head(self.embed(ids))

        class Deep(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = nn.Sequential(nn.Linear(HIDDEN, 4), nn.ReLU())

            def forward(self, x):
                return self.layers(x)
    """,
    )
    result = await check(engine, path)
    assert [(m.name, m.inputs, m.status) for m in result.modules] == [
        ("Vision", "inferred", "exported"),
        ("Tokens", "inferred", "exported"),
        ("Deep", "inferred", "exported"),
    ]


async def test_no_inputs_is_information_unless_used_as_a_submodule(engine: Engine, write) -> None:
    path = write(
        "none.py",
        """
        import torch

        class Block(torch.nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.fc = torch.nn.Linear(dim, dim)

            def forward(self, x):
                return self.fc(x)

        class Opaque(torch.nn.Module):
            def __init__(self, config):
                super().__init__()
                self.block = Block(config.dim)

            def forward(self, x, mask):
                return self.block(x) * mask
    """,
    )
    result = await check(engine, path)
    assert [(m.name, m.inputs, m.status) for m in result.modules] == [
        ("Block", "none", "skipped"),
        ("Opaque", "none", "skipped"),
    ]
    finding = only(result, "no-example-inputs")
    assert finding.severity == "information" and finding.module == "Opaque"
    assert finding.range.start.line == line_of(path, "class Opaque")
    assert "example_inputs" in finding.message


async def test_library_module_export_call_is_checked(engine: Engine, write) -> None:
    path = write(
        "library.py",
        """
        import torch

        if __name__ == "__main__":
            layer = torch.nn.TransformerEncoderLayer(d_model=16, nhead=2, batch_first=True)
            torch.export.export(layer.eval(), (torch.randn(2, 5, 16),))
    """,
    )
    result = await check(engine, path)
    (module,) = result.modules
    assert (module.name, module.inputs, module.status) == (
        "TransformerEncoderLayer",
        "export-call",
        "exported",
    )
    assert module.line == line_of(path, "torch.export.export(")


async def test_sibling_and_package_imports_work(engine: Engine, write) -> None:
    write("pkg/__init__.py", "")
    write(
        "pkg/layers.py",
        """
        import torch

        def double(x):
            return x * 2
    """,
    )
    path = write(
        "pkg/model.py",
        """
        import torch
        from .layers import double

        class UsesHelper(torch.nn.Module):
            def forward(self, x):
                return double(x)

            def example_inputs(self):
                return (torch.ones(2),)
    """,
    )
    result = await check(engine, path)
    assert [m.status for m in result.modules] == ["exported"]
    assert Path(path).parent.name == "pkg"


def test_discovery_prelude_skips_other_exports_and_later_statements() -> None:
    source = (
        "import torch\n"
        "class A(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x\n"
        "if __name__ == '__main__':\n"
        "    a = A()\n"
        "    torch.export.export(a, (torch.ones(1),))\n"
        "    b = A()\n"
        "    ep = torch.export.export(b, (torch.ones(2),))\n"
        "    print(ep)\n"
    )
    found = discover(source)
    (subject,) = found.subjects  # the first call claims class A
    assert subject.inputs["kind"] == "export-call"
    assert subject.inputs["call"] == [7, 4, 7, 4 + len("torch.export.export(a, (torch.ones(1),))")]
    assert subject.inputs["prelude"] == [[6, 4]]
    assert found.load_until == [5, 0]


async def test_workspace_root_is_importable_and_stack_traces_follow_the_buffer(engine: Engine, write) -> None:
    root = Path(write("shared_helpers.py", "def triple(x):\n    return x * 3\n")).parent
    path = write(
        "models/deep/model.py",
        """
        import torch
        from shared_helpers import triple

        class Tripler(torch.nn.Module):
            def forward(self, x):
                y = triple(x)
                return y.relu()

            def example_inputs(self):
                return (torch.ones(2),)
    """,
    )
    disk = Path(path).read_text()
    buffer = "# two lines the disk\n# does not have\n" + disk
    options = CheckOptions(roots=[str(root)])
    result = await check_file(engine, path, buffer, options)
    (module,) = result.modules
    assert module.status == "exported" and module.graph is not None
    lines = module.graph["lines"][path]
    relu_line = next(i for i, text in enumerate(buffer.splitlines(), 1) if "y.relu()" in text)
    assert lines[str(relu_line)] == ["aten.relu.default"]
