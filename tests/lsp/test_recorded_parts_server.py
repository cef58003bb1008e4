"""Parts checked with the inputs they really get, through the real server (issue 13, item 1):
`SelfAttention`, part of the `Block` that `__main__` exports, gets no false error from a guess, and a
failure of its own is published once, on its line, while the parent's is on the parent's."""

from __future__ import annotations

from lsprotocol import types

from tests.discovery.test_parts_and_guesses import BLOCK

from .conftest import Session, line_of

PART_BRANCH = "            if x.max() > 10:\n                x = x / 2\n"
PARENT_BRANCH = "            if x.mean() > 5:\n                x = x - 1\n"
BROKEN = BLOCK.replace(
    "            B, T, C = x.size()\n", "            B, T, C = x.size()\n" + PART_BRANCH
).replace(
    "            return x + self.attn(self.ln(x))\n",
    PARENT_BRANCH + "            return x + self.attn(self.ln(x))\n",
)


def where(diagnostics: list[types.Diagnostic]) -> list[tuple[int, str]]:
    return sorted((d.range.start.line, str(d.code)) for d in diagnostics)


async def test_a_part_gets_no_false_error_and_its_own_failure_once(server: Session) -> None:
    diagnostics = await server.open("block_parts.py", BLOCK)
    # SelfAttention is checked on what Block gives it: nothing to say; Unused's guess is information
    assert [d for d in diagnostics if d.severity == types.DiagnosticSeverity.Error] == []
    assert [d.data["module"] for d in diagnostics] == ["Unused"]
    uri = (server.root / "block_parts.py").resolve().as_uri()
    lenses = [title for title in await server.lenses(uri) if title.startswith("part of")]
    assert len(lenses) == 1 and "alone: ✓ exports" in lenses[0], lenses
    header = await server.hover(uri, line_of(BLOCK, "class SelfAttention"), 8)
    assert header is not None and "Alone, on inputs like those it gets there" in header
    version = server.change(uri, BROKEN)
    diagnostics = await server.wait_checked(uri, version)
    part, parent = line_of(BROKEN, "if x.max() > 10:"), line_of(BROKEN, "if x.mean() > 5:")
    # each once: the part's (by its own check, or by Block's search past its first failure) and Block's
    assert where([d for d in diagnostics if d.range.start.line in (part, parent)]) == [
        (part, "data-dependent-branch"),
        (parent, "data-dependent-branch"),
    ]
