"""GPU code through the real server on this CPU-only machine: findings, hover, fixes (docs/devices.md)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from tests.fixes.test_kinds_server import pick, proven

from .conftest import Session, line_of

ON_GPU = """
    import torch


    class OnGpu(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(8, 4)

        def forward(self, x):
            return self.fc(x) * torch.ones(4, device=x.device)


    class Branchy(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(8, 4)

        def forward(self, x):
            if x.sum() > 0:
                return self.fc(x)
            return -self.fc(x)


    if __name__ == "__main__":
        device = "cuda"
        torch.export.export(OnGpu().to(device).eval(), (torch.randn(2, 8, device=device),))
        torch.export.export(Branchy().cuda(), (torch.randn(2, 8).cuda(),))
"""


async def test_gpu_code_checks_without_a_gpu(server: Session) -> None:
    diagnostics = await server.open("on_gpu.py", ON_GPU)
    uri = (server.root / "on_gpu.py").resolve().as_uri()
    assert not [d for d in diagnostics if "CUDA" in d.message or d.code == "inputs-error"]
    (branch,) = [d for d in diagnostics if d.code == "data-dependent-branch" and "`Branchy`" in d.message]
    assert branch.range.start.line == line_of(ON_GPU, "if x.sum() > 0")
    assert "not looked for" in branch.message and "`cuda:0`" in branch.message
    # The hover's graph is the GPU's: the device it names, and the ops made on it.
    text = await server.hover(uri, line_of(ON_GPU, "class OnGpu"), 8)
    assert text is not None and "✓ exports" in text, text
    assert "Device: `cuda:0` — fake tensors on it" in text, text
    assert "device = device(type='cuda', index=0)" in text, text
    # A fix is offered; its proof cannot compare with eager here, and says so.
    fix = pick(await proven(server, uri, branch.range.start.line), "Rewrite as torch.cond")
    assert "not proven on this machine" in fix.title and "cuda:0" in fix.title, fix.title


LOADER = """
    import torch


    class Detector(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.head = torch.nn.Linear(8, 4)

        def forward(self, images):
            return self.head(images).sigmoid()


    def select_device():
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")


    def load_detector():
        return Detector().to(select_device()).eval()
"""
SCRIPT = """
    import torch
    from loader import load_detector

    if __name__ == "__main__":
        model = load_detector()
        images = torch.randn(2, 8)
        torch.export.export(model, (images,))
"""


async def test_a_loader_that_asks_for_a_gpu_warns_at_the_export_call(server: Session) -> None:
    """Issue 26 item 2 in the editor: the model's line is in another file, which the editor does not
    show for this check, so the warning is on the export call, the loader's lines related."""
    server.write("loader.py", LOADER)
    diagnostics = await server.open("export_det.py", SCRIPT)
    assert [(d.code, d.severity) for d in diagnostics] == [
        ("gpu-path-refused", types.DiagnosticSeverity.Warning)
    ], [d.message for d in diagnostics]
    (warning,) = diagnostics
    assert warning.range.start.line == line_of(SCRIPT, "torch.export.export(model")
    assert "Only on a machine with a GPU" in warning.message, warning.message
    related = {
        (Path(r.location.uri).name, r.location.range.start.line): r.message
        for r in warning.related_information or []
    }
    asked = related.get(("loader.py", line_of(LOADER, "torch.cuda.is_available()")), "")
    assert "is False on this machine" in asked, related
    assert ("loader.py", line_of(LOADER, "self.head(images)")) in related, related
