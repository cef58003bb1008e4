"""Torch's data-dependent wordings are declared once (`worker/wire/wordings.py`), for the worker
and the server alike: no other module of the package spells them (string constants, read from the
source; comments and docstrings are free to quote them)."""

from __future__ import annotations

import ast

from exportlens.worker.wire import wordings
from tests.paths import ROOT

PACKAGE = ROOT / "server/exportlens"
PHRASES = ("GuardOnDataDependent", "data-dependent expression", "Could not guard", "data dependent")


def spelled(path: str) -> list[str]:
    tree = ast.parse((PACKAGE / path).read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and any(p in node.value for p in PHRASES)
    ]


def test_no_module_but_wordings_spells_torchs_data_dependent_words() -> None:
    found = {
        str(p.relative_to(PACKAGE)): words
        for p in PACKAGE.rglob("*.py")
        if p.name != "wordings.py" and (words := spelled(str(p.relative_to(PACKAGE))))
    }
    assert not found, f"torch's wording outside worker/wire/wordings.py: {found}"


def test_the_wordings_of_each_torch_version_are_recognised() -> None:
    # 2.10-2.14 and 2.15 (torch/fx/experimental/symbolic_shapes.py at those tags)
    old = "Could not guard on data-dependent expression Eq(u0, 1) (unhinted: Eq(u0, 1)).  (Size-like: none)"
    new = "Could not extract specialized integer from data-dependent expression u0 (unhinted: u0)."
    assert wordings.guard_on_data([], old) and not wordings.guard_on_data([], new)
    assert wordings.guard_on_data(["GuardOnDataDependentSymNode", "RuntimeError"], new)
    assert wordings.guard_condition(old) == "Eq(u0, 1)" and wordings.guard_condition(new) == "u0"
    assert wordings.says_data_dependent("Data dependent operator")
    assert not wordings.says_data_dependent("dynamic shape")
    assert wordings.no_fake_kernel("aten::foo has no fake impl registered")
