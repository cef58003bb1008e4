"""What discovery finds a file compiles (discovery/compile_calls.py), without torch: functions too,
and the first call that feeds each, in a `__main__` block with the statements it needs before it."""

from __future__ import annotations

from exportlens.discovery import discover
from tests.compile.sources import (
    COMPILED_IN_MAIN,
    DECORATED_FUNCTION,
    FUNCTION_COMPILED,
    PRINT_AND_BRANCH,
    line_of,
)


def test_a_compiled_function_is_a_target_fed_by_its_first_call() -> None:
    (step,) = discover(FUNCTION_COMPILED, "step.py").subjects
    line = line_of(FUNCTION_COMPILED, "out = fast_step(torch.randn(2, 8), 3.0)")
    assert (step.name, step.class_name, step.function) == ("step", None, "step")
    assert step.inputs == {
        "kind": "compile-call",
        # the whole span: a call chained on it (`fast_step(...).sum()`) would start there too
        "call": [line + 1, 6, line + 1, len("out = fast_step(torch.randn(2, 8), 3.0)")],
        "prelude": [],
    }
    assert step.compile == {"fullgraph": False, "dynamic": None}


def test_a_decorated_function_called_in_main_gets_that_blocks_prelude() -> None:
    found = discover(DECORATED_FUNCTION, "gate.py")
    (gate,) = found.subjects
    assert (gate.name, gate.function, gate.compile) == ("gate", "gate", {"fullgraph": True, "dynamic": None})
    assert gate.inputs["call"][:2] == [line_of(DECORATED_FUNCTION, "gate(batch)") + 1, 4]
    assert gate.inputs["prelude"] == [[line_of(DECORATED_FUNCTION, "batch = ") + 1, 4]]
    assert found.load_until == [line_of(DECORATED_FUNCTION, "if __name__") + 1, 0]


def test_a_compiled_function_never_called_is_not_a_target() -> None:
    never_called = FUNCTION_COMPILED.split("\nout = ")[0] + "\n"
    assert discover(never_called, "step.py").subjects == []


def test_a_compile_call_in_main_is_fed_by_its_first_call_there() -> None:
    found = discover(COMPILED_IN_MAIN, "train.py")
    net = next(t for t in found.subjects if t.name == "Net")
    assert net.compile == {"fullgraph": False, "dynamic": None} and net.inputs_kind == "compile-call"
    assert net.inputs["call"][:2] == [line_of(COMPILED_IN_MAIN, "model(x)") + 1, 8]
    # `main()`'s statements before the call run first: the compile (building `Net()`) and `x`
    assert net.inputs["prelude"] == [
        [line_of(COMPILED_IN_MAIN, "model = torch.compile") + 1, 4],
        [line_of(COMPILED_IN_MAIN, "x = torch.randn") + 1, 4],
    ]
    # loading the file runs no call of the compiled model: nothing stops it (`main()` is not run)
    assert found.load_until is None


def test_a_compile_of_a_functions_parameters_is_left_to_its_caller() -> None:
    """`def train(model, loader): model = torch.compile(model)`: nothing in the file gives `model` a
    value there, so no check is planned on it (it would only fail building its inputs)."""
    source = COMPILED_IN_MAIN.replace(
        "def main():\n    model = torch.compile(Net())\n    x = torch.randn(2, 8)\n",
        "def main(model, x):\n    model = torch.compile(model)\n",
    )
    assert "def main(model, x):" in source
    assert [t.compile for t in discover(source, "train.py").subjects] == [None]  # `Net`, as an export


def test_a_top_level_compile_called_in_main_gets_that_blocks_prelude() -> None:
    source = PRINT_AND_BRANCH.replace(
        "out = model(torch.randn(2, 8))\n",
        'if __name__ == "__main__":\n    x = torch.randn(2, 8)\n    model(x)\n',
    )
    (net,) = discover(source, "train.py").subjects
    assert net.inputs["call"][:2] == [line_of(source, "    model(x)") + 1, 4]
    assert net.inputs["prelude"] == [[line_of(source, "x = torch.randn") + 1, 4]]


def test_a_helper_defined_above_main_does_not_feed_the_first_call() -> None:
    """`evaluate()` reads the global compiled model and is defined first, but runs only when `main()`
    calls it, after main's own call: that call, in execution order, feeds the check."""
    source = (
        PRINT_AND_BRANCH.replace("out = model(torch.randn(2, 8))\n", "")
        + "\n\ndef evaluate():\n    return model(torch.zeros(3, 8))\n"
        + "\n\ndef main():\n    out = model(torch.randn(2, 8))\n    evaluate()\n"
        + '\n\nif __name__ == "__main__":\n    main()\n'
    )
    (net,) = [t for t in discover(source, "net.py").subjects if t.compile is not None]
    assert net.inputs["call"][:2] == [line_of(source, "out = model(torch.randn(2, 8))") + 1, 10]
