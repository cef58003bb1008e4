"""GPU code through the real server on this CPU-only machine: findings, hover, fixes (docs/devices.md)."""

from __future__ import annotations

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
        device = "cuda" if torch.cuda.is_available() else "cpu"
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
