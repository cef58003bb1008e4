"""Which class an export call exports, read from the file (discovery/built_class.py), no torch.

The shapes are those of public scripts: `model = Net().to(device)` at the top level, a name
reassigned from itself, a factory function, EfficientNet's `from_name` classmethod building
`cls(...)`, `DataParallel(...).module`, a wrapper that keeps its argument. Each must make the
class's own target the export call's (named `Net`, its findings on `Net`), so no second target of
`Net` is checked on guessed inputs.
"""

from __future__ import annotations

import textwrap

import pytest

from exportlens.discovery import discover

NET = """
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.fc = nn.Linear(8, width)

    @classmethod
    def from_name(cls, name, **override):
        model = cls(width=8)
        model.name = name
        return model

    @staticmethod
    def tiny():
        return Net(4)

    def forward(self, x):
        return self.fc(x)


class Sub(Net):
    pass


class Keeper(nn.Module):
    def __init__(self, inner, scale=1.0):
        super().__init__()
        self.inner = inner
        self.scale = scale

    def forward(self, x):
        return self.inner(x) * self.scale


def build_model(args):
    model = Net(args.width)
    model.load_state_dict({}, strict=False)
    return model.eval()


def pick(name):
    if name == "net":
        return Net()
    return Keeper(Net())


def forever(n):
    return forever(n - 1)
"""

CASES = {
    # the script's statements run at the top level, before the export call the load stops at
    "top-level .to(device)": 'device = "cpu"\nmodel = Net().to(device)\n',
    "cuda": "model = Net().cuda()\n",
    "half then float": "model = Net().half().float()\n",
    "apply an init": "model = Net().apply(init_weights).to('cpu')\n",
    "reassigned from itself": "model = Net()\nmodel = model.to('cpu')\nmodel.eval()\n",
    "annotated": "model: nn.Module = Net()\n",
    "factory function": "model = build_model(args)\n",
    "classmethod factory": "model = Net.from_name('b0')\n",
    "inherited classmethod of a subclass": "model = Sub.from_name('b0')\n",
    "staticmethod factory": "model = Net.tiny().eval()\n",
    "DataParallel's module": "model = nn.DataParallel(Net().cuda()).module\n",
    "a wrapper's attribute": "wrapper = Keeper(scale=2.0, inner=Net())\nmodel = wrapper.inner\n",
    "assigned in a block": (
        "if CUDA:\n    model = Net().cuda()\nelse:\n    model = Net()\nmodel = model.to('cpu')\n"
    ),
}
EXPECTED = {"inherited classmethod of a subclass": "Sub"}


def _script(statements: str, under_main: bool) -> str:
    call = "torch.export.export(model, (torch.randn(2, 8),))\n"
    if not under_main:
        return NET + "\n\n" + statements + call
    body = textwrap.indent(statements + call, "    ")
    return NET + '\n\nif __name__ == "__main__":\n' + body


@pytest.mark.parametrize("under_main", [False, True], ids=["top-level", "under-main"])
@pytest.mark.parametrize("case", list(CASES))
def test_the_export_call_exports_the_class(case: str, under_main: bool) -> None:
    subjects = discover(_script(CASES[case], under_main)).subjects
    want = EXPECTED.get(case, "Net")
    (exported,) = [t for t in subjects if t.inputs_kind == "export-call"]
    assert (exported.name, exported.class_name) == (want, want)
    assert not any(t.name == want and t.inputs_kind == "inferred" for t in subjects)


def test_inside_a_function_the_functions_own_names_are_read() -> None:
    source = (
        NET
        + "\n\ndef main():\n    net = Net().to('cpu')\n    torch.export.export(net, (torch.randn(2, 8),))\n"
    )
    (exported,) = [t for t in discover(source).subjects if t.inputs_kind == "export-call"]
    assert exported.class_name == "Net"


@pytest.mark.parametrize(
    ("statements", "name"),
    [
        # every return must build the same class: `pick` builds a Net or a Keeper
        ("model = pick('net')\n", "pick"),
        # so must both branches of an `if` (pytorch/examples' word_language_model/main.py)
        ("if ARGS.transformer:\n    model = Keeper(Net())\nelse:\n    model = Net()\n", "model"),
        # a library's factory: named after it, its class told by the export job
        ("import timm\nmodel = timm.create_model('resnet18')\n", "create_model"),
        # a recursion ends (and names the factory)
        ("model = forever(3)\n", "forever"),
    ],
)
def test_what_the_file_cannot_tell_is_left_to_the_export_job(statements: str, name: str) -> None:
    subjects = discover(_script(statements, under_main=True)).subjects
    (exported,) = [t for t in subjects if t.inputs_kind == "export-call"]
    assert (exported.name, exported.class_name) == (name, None)
    # every class the script's code names may be what it exports: its result key keeps them
    assert {"Net", "Keeper"} <= exported.uses
