"""An export call that names torch's parameters (`export(mod=Net(), args=(x,), kwargs=...)`): the
module, its example inputs, `kwargs=` and `dynamic_shapes=` are read as torch reads them, positional
or keyword, through the real worker. It once raised IndexError in the worker (`call.args[0]`), said
as `inputs-error` on a model that exports."""

from __future__ import annotations

import ast

from exportlens.discovery import discover
from exportlens.engine import Engine
from exportlens.worker.wire.export_call import export_argument
from tests.conftest import check, line_of

NET = """
import torch
from torch.export import Dim

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x, scale=None):
        return self.fc(x) * (1.0 if scale is None else scale)

if __name__ == "__main__":
    x = torch.randn(5, 4)
"""


async def test_keyword_module_args_kwargs_and_dynamic_shapes_export(engine: Engine, write) -> None:
    path = write(
        "keywords.py",
        NET
        + """\
    batch = Dim("batch", min=2, max=64)
    torch.export.export(mod=Net(), args=(x,), kwargs={"scale": torch.tensor(2.0)},
                        dynamic_shapes={"x": {0: batch}, "scale": None})
""",
    )
    result = await check(engine, path)
    (module,) = result.modules
    assert (module.name, module.inputs, module.status) == ("Net", "export-call", "exported")
    assert result.diagnostics == []
    assert module.graph is not None
    assert [(d["input"], d["dim"], d["min"], d["max"]) for d in module.graph["dynamic"]] == [("x", 0, 2, 64)]
    names = [i["name"] for i in module.graph["inputs"]]
    assert "scale" in names, names  # `kwargs=` reached forward


async def test_a_refusal_of_a_keyword_form_call_is_the_models_not_inputs_error(engine: Engine, write) -> None:
    """Everything by keyword, the model narrowing the batch: the refusal is torch's, on the model's
    line that narrows, not an ExportLens `inputs-error`."""
    source = NET.replace("self.fc(x) *", "self.fc(x[:3]) *") + (
        '    torch.export.export(mod=Net(), args=(x,), dynamic_shapes={"x": {0: Dim("batch")}})\n'
    )
    path = write("narrow.py", source)
    result = await check(engine, path)
    (finding,) = [d for d in result.diagnostics if d.severity == "error"]
    assert finding.code != "inputs-error", finding.message
    assert finding.range.start.line == line_of(path, "x[:3]"), finding.message


def test_each_parameter_is_found_positional_or_keyword() -> None:
    call = ast.parse("export(m, a, kwargs=k, dynamic_shapes=d, strict=s)").body[0].value  # type: ignore[attr-defined]
    keyword = ast.parse("export(args=a, mod=m)").body[0].value  # type: ignore[attr-defined]
    starred = ast.parse("export(*both)").body[0].value  # type: ignore[attr-defined]
    said = {
        n: ast.unparse(node) if (node := export_argument(call, n)) else None
        for n in ("mod", "args", "kwargs", "dynamic_shapes", "strict")
    }
    assert said == {"mod": "m", "args": "a", "kwargs": "k", "dynamic_shapes": "d", "strict": "s"}
    assert [ast.unparse(export_argument(keyword, n) or keyword) for n in ("mod", "args")] == ["m", "a"]
    assert export_argument(keyword, "kwargs") is None and export_argument(starred, "mod") is None
    source = NET + "    torch.export.export(mod=Net().eval(), args=(x,))\n"
    assert [t.name for t in discover(source).subjects] == ["Net"]


async def test_the_call_is_evaluated_in_its_own_order(engine: Engine, write) -> None:
    """`export(Net(), (example(),))` builds the model before its example, as Python does, so the
    model's weights are the user's run's (the generator's draws in order). Evaluated example
    first, the AOTI package's weights were not the script's (tests/lowerings/test_aoti_worker.py).
    The model checks that exactly one example was built after it (a dry run may build both once
    before: sizing.py)."""
    source = NET.replace(
        "        self.fc = torch.nn.Linear(4, 3)\n",
        "        self.fc = torch.nn.Linear(4, 3)\n        self.examples_before = len(BUILT)\n",
    ).replace(
        "        return self.fc(x)",
        '        assert self.examples_before == len(BUILT) - 1, "built after its example"\n'
        "        return self.fc(x)",
    )
    source = source.replace(
        "class Net(",
        "BUILT = []\n\ndef example():\n    BUILT.append(1)\n    return torch.randn(5, 4)\n\nclass Net(",
        1,
    )
    for call in (
        "torch.export.export(Net(), (example(),))",
        "torch.export.export(mod=Net(), args=(example(),))",
    ):
        path = write("ordered.py", source + f"    {call}\n")
        result = await check(engine, path)
        (module,) = result.modules
        assert module.status == "exported", (call, [(d.code, d.message) for d in result.diagnostics])
    # Written example first, Python evaluates it first: the model sees it, as in the user's run.
    path = write("ordered.py", source + "    torch.export.export(args=(example(),), mod=Net())\n")
    result = await check(engine, path)
    assert any("built after its example" in d.message for d in result.diagnostics), result.diagnostics


async def test_the_dry_run_leaves_the_generators_as_it_found_them(engine: Engine, write) -> None:
    """The meta dry run (sizing.py) builds the model once before the real build: the real one
    still draws what the user's run draws from Python's and numpy's generators (torch's: the
    AOTI package matches the script's weights, tests/lowerings/test_aoti_worker.py)."""
    source = (
        NET.replace("import torch\n", "import random\nimport numpy\nimport torch\n", 1)
        .replace(
            "        self.fc = torch.nn.Linear(4, 3)\n",
            "        self.fc = torch.nn.Linear(4, 3)\n"
            "        self.draws = (random.random(), float(numpy.random.rand()))\n",
        )
        .replace(
            "        return self.fc(x)",
            '        assert self.draws == EXPECTED, "not the run\'s draws"\n        return self.fc(x)',
        )
        .replace(
            "class Net(",
            "random.seed(1)\nnumpy.random.seed(1)\n"
            "EXPECTED = (random.random(), float(numpy.random.rand()))\n"
            "random.seed(1)\nnumpy.random.seed(1)\n\nclass Net(",
            1,
        )
    )
    path = write("draws.py", source + "    torch.export.export(Net(), (x,))\n")
    result = await check(engine, path)
    (module,) = result.modules
    assert module.status == "exported", [(d.code, d.message) for d in result.diagnostics]
