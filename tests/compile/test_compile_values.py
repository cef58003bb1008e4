"""Which arguments of a compiled model's calls the script gives a new value each time
(discovery/compile_values.py): only those the compile check varies."""

from __future__ import annotations

import ast
import textwrap

from exportlens.discovery.compile_values import varying_arguments


def _varying(source: str) -> list[dict[str, object]]:
    return varying_arguments(ast.parse(textwrap.dedent(source)), {"model"})


def test_a_loop_variable_and_a_name_updated_in_place_vary_a_constant_does_not() -> None:
    found = _varying(
        """
        temperature = 1.0
        out = model(x, 3, temperature=temperature)
        for t in range(10):
            out = model(out, t, temperature=temperature)
            temperature *= 0.9
        """
    )
    assert found == [{"argument": "temperature", "line": 3}, {"argument": 1, "line": 5}]


def test_a_loop_over_batches_varies_the_batch_not_the_constant_beside_it() -> None:
    found = _varying(
        """
        def evaluate(loader):
            for images, labels in loader:
                model(images, 0.5)
        """
    )
    assert found == [{"argument": 0, "line": 4}]  # a tensor: the worker varies numbers only


def test_the_models_own_methods_are_not_the_scripts_calls() -> None:
    found = _varying(
        """
        class Net:
            def forward(self, x):
                for i in range(3):
                    x = model(x, i)
                return x
        """
    )
    assert found == []
