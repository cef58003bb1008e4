"""`apply` judges an edit by re-parsing only the top-level statements it touches: the verdict must
be the whole file's, whatever the edit (property test against `ast.parse` of the full text)."""

from __future__ import annotations

import ast
import functools

from hypothesis import given, settings
from hypothesis import strategies as st

from exportlens.document import Document
from exportlens.fixes import Edit, EditError, apply


@functools.lru_cache(maxsize=4)
def buffer(text: str) -> Document:
    """The buffer a fix is computed on (nothing is read from its path); BASE's is parsed once."""
    return Document("/fixes/model.py", text)


BASE = '''# leading comment
import torch


@torch.no_grad()
def helper(x):
    return x * 2

# a comment between statements

class M(torch.nn.Module):
    """Doc."""

    def forward(self, x):
        if x.sum() > 0:
            return x
        return -x


if __name__ == "__main__":
    m = M()
else:
    m = None
total = (1 +
         2)
last = 3'''

SNIPPETS = [
    "",
    "\n",
    "# note\n",
    "x = 1\n",
    "    x = 1\n",
    "        x = 1\n",
    "    pass\n",
    "        return x + 1\n",
    "else:\n",
    "elif True:\n",
    "def f():\n",
    "def f():\n    pass\n",
    "class C:\n",
    "@torch.no_grad()\n",
    '"""\n',
    "x = (\n",
    ")\n",
    "y = 2 \\\n",
    "    def g(self):\n        return 1\n",
    "import os\n",
    "  bad indent\n",
]
LINES = BASE.count("\n") + 1


def full_verdict(source: str, edits: list[Edit]) -> bool:
    lines = source.splitlines(keepends=True)
    lines[-1] += "\n"
    for edit in reversed(sorted(edits, key=lambda e: (e.first, e.end))):  # as `apply` orders them
        lines[edit.first : edit.end] = edit.text.splitlines(keepends=True)
    try:
        ast.parse("".join(lines))
    except SyntaxError:
        return False
    return True


@st.composite
def edits(draw: st.DrawFn) -> list[Edit]:
    """One or two non-overlapping line edits (insertions or replacements)."""
    count = draw(st.integers(1, 2))
    cuts = sorted(draw(st.lists(st.integers(0, LINES), min_size=2 * count, max_size=2 * count)))
    return [
        Edit(cuts[2 * i], cuts[2 * i + 1], draw(st.sampled_from(SNIPPETS)) + draw(st.sampled_from(SNIPPETS)))
        for i in range(count)
    ]


@settings(max_examples=600, deadline=None, derandomize=True)
@given(edits())
def test_apply_accepts_exactly_what_parses(chosen: list[Edit]) -> None:
    expected = full_verdict(BASE, chosen)
    try:
        apply(buffer(BASE), chosen)
        accepted = True
    except EditError:
        accepted = False
    if len(chosen) == 1 or accepted:
        assert accepted == expected, (chosen, expected)
    else:
        # Two edits in different statements are judged apart: `x = (` here and `)` there make a
        # file that parses only together.  Fixes never split a construct across edits.
        assert not expected or _split_construct(chosen), (chosen, expected)


def _split_construct(chosen: list[Edit]) -> bool:
    """A pair of edits each of which breaks the file alone (so their regions cannot parse apart)."""
    return all(not full_verdict(BASE, [edit]) for edit in chosen)


def test_an_indented_line_after_a_statement_continues_it() -> None:
    source = "def f():\n    return 1\n\n# c\n\nx = 2\n"
    assert (
        apply(buffer(source), [Edit(3, 3, "    pass\n")]).text
        == "def f():\n    return 1\n\n    pass\n# c\n\nx = 2\n"
    )
    assert apply(buffer(source), [Edit(2, 2, "else_ = 0\n")]).text
