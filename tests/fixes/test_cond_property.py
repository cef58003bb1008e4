"""Property: generated `if` statements of many shapes through the cond rewriter (eager).

Every fix's text parses; every fix offered (not disabled) behaves like the original function on
inputs that take each branch, with the real torch.cond / torch.where of the worker's torch in
eager mode.
"""

from __future__ import annotations

import textwrap
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exportlens.document import Document
from exportlens.fixes import apply, fixes_for
from tests.worker_torch import WorkerTorch


def buffer(text: str) -> Document:
    """The buffer a fix is computed on (nothing is read from its path)."""
    return Document("/fixes/model.py", text)


PREDS = ["x.sum() > 0", "(x > 0).any()", "y.mean() < 0.5", "x.max() > y.min()"]
EXPRS = ["x + 1", "y * z", "x.sin()", "z - y", "x", "y.view(-1)", "torch.relu(x) * 2", "x.abs()"]
# Run with the worker's torch: does each rewrite return what the original does on (x, y) pairs
# for which every predicate above is true for one and false for the other?
SAME = """
import torch
INPUTS = [(torch.ones(4), torch.full((4,), 0.7)), (-torch.ones(4), torch.full((4,), 0.2))]


def run(source, x, y):
    namespace = {{}}
    exec(compile(source, "<generated>", "exec"), namespace)
    return namespace["f"](x.clone(), y.clone())


def same(new):
    return all(bool(torch.allclose(run(new, x, y), run({source!r}, x, y))) for x, y in INPUTS)


result = [same(new) for new in {news!r}]
"""


@st.composite
def functions(draw: Any) -> tuple[str, str]:
    """(source, shape): a function with one data-dependent `if` of a drawn shape."""
    pred = draw(st.sampled_from(PREDS))
    e = [draw(st.sampled_from(EXPRS)) for _ in range(4)]
    comment = draw(st.sampled_from(["", "  # why"]))
    shape = draw(
        st.sampled_from(
            ["both-return", "early-return", "one-line", "assign-both", "assign-two", "reassign-no-else",
             "temps", "nested-return", "one-branch-new", "print", "loop-return", "inplace"]
        )
    )  # fmt: skip
    body = {
        "both-return": f"if {pred}:{comment}\n    return {e[0]}\nelse:\n    return {e[1]}\n",
        "early-return": f"if {pred}:\n    return {e[0]}{comment}\nw = {e[2]}\nreturn w + {e[1]}\n",
        "one-line": f"if {pred}: return {e[0]}\nreturn {e[1]}\n",
        "assign-both": f"if {pred}:\n    a = {e[0]}{comment}\nelse:\n    a = {e[1]}\nreturn a + z\n",
        "assign-two": f"if {pred}:\n    a = {e[0]}\n    b = {e[1]}\nelse:\n    a = {e[2]}\n    b = {e[3]}\n"
        "return a * b\n",
        "reassign-no-else": f"if {pred}:\n    y = {e[0]}{comment}\nreturn y - z\n",
        "temps": f"if {pred}:\n    t = {e[0]}\n    t = t * 3\n    return t\nreturn {e[1]}\n",
        "nested-return": f"if {pred}:\n    return {e[0]}\nelse:\n    if z.sum() > 100:\n"
        f"        return {e[1]}\n    return {e[2]}\n",
        "one-branch-new": f"if {pred}:\n    a = {e[0]}\nreturn a\n",
        "print": f"if {pred}:\n    print('hi')\n    return {e[0]}\nreturn {e[1]}\n",
        "loop-return": f"for i in range(2):\n    if {pred}:\n        return {e[0]}\nreturn {e[1]}\n",
        "inplace": f"if {pred}:\n    x.add_(1)\n    a = x\nelse:\n    a = y\nreturn a\n",
    }[shape]
    source = "import torch\n\n\ndef f(x, y):\n    z = x * 0.5  # kept\n" + textwrap.indent(body, "    ")
    return source, shape


REFUSED = {"nested-return", "one-branch-new", "print", "loop-return", "inplace"}


@settings(
    max_examples=30,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(functions())
def test_rewrites_parse_and_behave_like_the_original(
    worker_torch: WorkerTorch, case: tuple[str, str]
) -> None:
    # `case` last: @given fills the rightmost argument, pytest the fixture
    source, shape = case
    line = next(i for i, text in enumerate(source.splitlines()) if text.strip().startswith("if "))
    fixes = fixes_for(buffer(source), "data-dependent-branch", line, {}, None)
    cond = [f for f in fixes if f.kind == "cond"]
    assert len(cond) == 1, fixes
    if shape in REFUSED:
        assert cond[0].disabled, f"{shape} must be refused:\n{source}"
    else:
        assert cond[0].disabled is None, f"{shape} refused: {cond[0].disabled}\n{source}"
    if shape in REFUSED:
        assert not [f for f in fixes if not f.disabled], "nothing may be offered for it"
    offered = []
    for fix in fixes:
        if fix.disabled:
            assert not fix.edits
            continue
        new = apply(buffer(source), fix.edits).text  # raises unless the whole text parses
        assert "z = x * 0.5  # kept" in new
        offered.append((fix.title, new))
    if offered:
        same = worker_torch.run(SAME.format(source=source, news=[new for _, new in offered]))
        differ = [f"{title}:\n{new}" for (title, new), ok in zip(offered, same, strict=True) if not ok]
        assert differ == [], f"differs from the original:\n{source}\n---\n" + "\n---\n".join(differ)


def test_elif_and_while_are_refused_with_a_reason() -> None:
    source = "def f(x):\n    if x.sum() > 0:\n        return x\n    elif x.sum() < -1:\n        return -x\n"
    source += "    return x\n"
    (fix,) = fixes_for(buffer(source), "data-dependent-branch", 3, {}, None)
    assert fix.disabled and "elif" in fix.disabled
    loop = "def f(x):\n    while x.sum() > 0:\n        x = x - 1\n    return x\n"
    (fix,) = fixes_for(buffer(loop), "data-dependent-branch", 1, {}, None)
    assert fix.disabled and "while" in fix.disabled
