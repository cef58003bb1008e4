"""`exportlens.targets` through the real server: an ONNX refusal squiggled on the user's line, the
ONNX facts on hover (docs/targets.md); the setting is part of the results' key (a change re-checks)."""

from __future__ import annotations

from tests.custom_ops import scale_op
from tests.lowerings import needs_onnx

from .conftest import Session, line_of

SCALED = """

class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        return scale(self.fc(x))


if __name__ == "__main__":
    torch.export.export(Scaled().eval(), (torch.randn(2, 4),))
"""
NO_TRANSLATION = scale_op("el_lsp") + SCALED
SMALL = """
    import torch


    class Small(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(8, 4)

        def forward(self, x):
            return torch.relu(self.fc(x))


    if __name__ == "__main__":
        torch.export.export(Small().eval(), (torch.randn(2, 8),))
"""


@needs_onnx
async def test_an_onnx_refusal_is_on_the_users_line_and_hover_shows_the_onnx_facts(server: Session) -> None:
    await server.set_settings(targets=["export", "onnx"])
    try:
        diagnostics = await server.open("targets_refused.py", NO_TRANSLATION)
        (refused,) = [d for d in diagnostics if d.code == "onnx-no-translation"]
        assert refused.range.start.line == line_of(NO_TRANSLATION, "return scale(self.fc(x))")
        assert refused.message.startswith(
            "ONNX: no ONNX translation nor decomposition for `el_lsp.scale.default`"
        )
        assert [d.code for d in diagnostics] == ["onnx-no-translation"]
        # torch.export takes it: the lens says so, and which target refuses it
        lens = (await server.lenses((server.root / "targets_refused.py").resolve().as_uri()))[0]
        assert lens.startswith("✓ exports · ") and lens.endswith(" · ✗ ONNX: 1 issue"), lens
        diagnostics = await server.open("targets_clean.py", SMALL)
        assert diagnostics == []
        uri = (server.root / "targets_clean.py").resolve().as_uri()
        text = await server.hover(uri, line_of(SMALL, "class Small"), 8)
        assert text is not None and "ONNX ✓ · opset " in text, text
        assert " ops · model " in text and " KB" in text, text
    finally:
        await server.set_settings(targets=["export"])
