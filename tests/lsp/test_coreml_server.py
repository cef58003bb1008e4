"""The `coreml` target in the editor, through the real server (issue 41 item 5): `torch.unique` refused
by coremltools on its line, the lens naming the target; a small model clean, its hover saying what was
converted and that Core ML did not run it (Core ML runs on macOS only)."""

from __future__ import annotations

import textwrap

from tests.lowerings.test_coreml_worker import UNIQUE

from .conftest import Session, line_of
from .test_executorch_server import SMALL


async def test_the_editor_shows_the_coreml_refusal_and_facts(server: Session) -> None:
    await server.set_settings(targets=["export", "coreml"])
    try:
        source = textwrap.dedent(UNIQUE).lstrip("\n")
        diagnostics = await server.open("cm_counted.py", source)
        assert [(d.code, d.range.start.line) for d in diagnostics] == [
            ("coreml-conversion-error", line_of(source, "torch.unique("))
        ], diagnostics
        assert diagnostics[0].message.startswith(
            "Core ML: `ct.convert` refused the program at `aten._unique2"
        )
        lens = (await server.lenses((server.root / "cm_counted.py").resolve().as_uri()))[0]
        assert lens.startswith("✓ exports · ") and "Core ML" in lens, lens
        assert await server.open("cm_small.py", SMALL) == []
        uri = (server.root / "cm_small.py").resolve().as_uri()
        text = await server.hover(uri, line_of(SMALL, "class Small"), 8)
        assert text is not None and "Core ML ✓ · " in text, text
        assert " ops · spec " in text and " · weights " in text and "deployment target iOS17" in text, text
        assert "numeric check not run: Core ML runs models on macOS only" in text, text
    finally:
        await server.set_settings(targets=["export"])
