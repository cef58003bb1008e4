"""A graph break's fixes through the real server (issue 31, fixes/compiled.py): each proven by compiling
the fixed text again in the worker (no break on the fixed lines, the same result as eager), offered
only when proven, and applying one removes the warning."""

from __future__ import annotations

from tests.compile.sources import NO_INDUCTOR, PRINT_AND_BRANCH
from tests.fixes.conftest import apply_edit, pick, proven, resolve
from tests.lsp.conftest import Session, line_of

SCALE = (
    NO_INDUCTOR
    + """
class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x)
        top = h.abs().max().item()
        return h / (top + 1.0)


model = torch.compile(Scale())
out = model(torch.randn(2, 8))
"""
)


def codes_on(diagnostics: list, line: int) -> list:
    return [d.code for d in diagnostics if d.range.start.line == line]


async def test_a_print_is_kept_out_of_the_compiled_code_and_its_break_goes(server: Session) -> None:
    before = await server.open("cfx_print.py", PRINT_AND_BRANCH)
    uri, text = server.write("cfx_print.py", PRINT_AND_BRANCH)
    printed = line_of(PRINT_AND_BRANCH, 'print("hidden"')
    assert codes_on(before, printed) == ["compile-graph-break"]
    found = await proven(server, uri, printed)
    guard = pick(found, "Run `print('hidden', h.shape)` only when not compiling")
    assert guard.title.endswith("(no graph break there; matches eager)") and guard.is_preferred
    assert pick(found, "Remove `print('hidden', h.shape)`").title.endswith(
        "(no graph break there; matches eager)"
    )
    # dynamo cannot reorder a print of a `torch.Size`: that fix's proof fails, so it is not offered
    assert not [a for a in found if "reorderable_logging_functions" in a.title], [a.title for a in found]
    new = apply_edit(text, (await resolve(server, guard)).edit, uri, 1)
    assert "        if not torch.compiler.is_compiling():\n            print(" in new
    after = await server.wait_checked(uri, server.change(uri, new))
    assert [d.code for d in after] == ["compile-graph-break"]  # the `if` on h.sum() is left
    assert codes_on(after, line_of(new, "if h.sum() > 0:")) == ["compile-graph-break"]


async def test_a_data_dependent_branch_becomes_torch_cond_proven_on_both_branches(server: Session) -> None:
    await server.open("cfx_branch.py", PRINT_AND_BRANCH)
    uri, text = server.write("cfx_branch.py", PRINT_AND_BRANCH)
    found = await proven(server, uri, line_of(PRINT_AND_BRANCH, "if h.sum() > 0:"))
    cond = pick(found, "Rewrite as torch.cond")
    assert cond.title.endswith("(no graph break there; matches eager on both branches)"), cond.title
    new = apply_edit(text, (await resolve(server, cond)).edit, uri, 1)
    assert "torch.cond(" in new
    after = await server.wait_checked(uri, server.change(uri, new))
    assert [(d.code, d.range.start.line) for d in after] == [
        ("compile-graph-break", line_of(new, 'print("hidden"'))
    ]


async def test_item_is_captured_in_the_graph_by_torch_config(server: Session) -> None:
    before = await server.open("cfx_item.py", SCALE)
    uri, text = server.write("cfx_item.py", SCALE)
    line = line_of(SCALE, ".item()")
    assert codes_on(before, line) == ["compile-graph-break"]
    fix = pick(await proven(server, uri, line), "Capture `.item()` in the graph")
    assert fix.title.endswith("(no graph break there; matches eager)") and fix.is_preferred, fix.title
    new = apply_edit(text, (await resolve(server, fix)).edit, uri, 1)
    assert "torch._dynamo.config.capture_scalar_outputs = True\n" in new
    assert await server.wait_checked(uri, server.change(uri, new)) == []
