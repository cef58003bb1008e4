"""Code written for a GPU checks on this CPU-only machine (worker/job/devices.py, docs/devices.md).

Real worker, real torch: under the default policy ("fake") the tensors the code puts on a device
are fake tensors on that device, so nothing touches CUDA, the graph says `cuda:0`, and what
torch refuses is said on its line, never "Torch not compiled with CUDA enabled".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine
from exportlens.findings import FileResult, ModuleResult
from exportlens.worker.wire.protocol import DevicePolicy
from tests.conftest import line_of

MODELS = """
import torch
from torch.export import Dim


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(x).relu()


class Branchy(Net):
    def forward(self, x):
        if x.sum() > 0:
            return self.fc(x)
        return -self.fc(x)


class Mixed(Net):
    def forward(self, x):
        return self.fc(x) + torch.ones(2, 4)


class Amp(Net):
    def forward(self, x):
        with torch.autocast("cuda", dtype=torch.float16):
            return self.fc(x)


class Follows(Net):
    def forward(self, x):
        return self.fc(x) * torch.ones(4, device=x.device)
"""


async def run(
    engine: Engine, write: Any, script: str, device: DevicePolicy = "fake", **kw: Any
) -> FileResult:
    path = write("gpu.py", MODELS + script)
    options = CheckOptions(roots=[str(Path(path).parent)], device=device, **kw)
    return await check_file(engine, path, None, options)


def exported(result: FileResult, name: str) -> ModuleResult:
    """The module checked through the export call of `name` (named `Cls`, or `Cls()` when another
    call owns the name), exported."""
    found = [m for m in result.modules if m.name in (name, f"{name}()") and m.inputs == "export-call"]
    assert [m.status for m in found] == ["exported"], [(m.name, m.status) for m in result.modules]
    assert found[0].graph is not None
    return found[0]


def placement(result: FileResult, name: str) -> dict[str, Any]:
    graph = exported(result, name).graph
    assert graph is not None
    return dict(graph["placement"])


def no_cuda_error(result: FileResult) -> None:
    words = [d.message for d in result.diagnostics if "CUDA" in d.message or d.code == "inputs-error"]
    assert words == [], words


async def test_a_script_that_asks_for_a_gpu_takes_this_machines_path(engine: Engine, write: Any) -> None:
    """Issue 26 item 2 (this test asserted the GPU path before: `is_available()` answered True). The
    script asks; this machine has no GPU, so it exports on the CPU, as `python script.py` would here.
    Its GPU path is looked at once more and exports too (inputs and model both on `device`)."""
    result = await run(
        engine,
        write,
        """
if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = Net().to(device).eval()
    torch.export.export(model, (torch.randn(2, 8, device=device),))
""",
        mode="both",
    )
    no_cuda_error(result)
    exported = [m for m in result.modules if m.inputs == "export-call"]
    assert [m.status for m in exported] == ["exported", "exported"]  # non-strict and strict
    for module in exported:
        assert module.graph is not None
        assert module.graph["placement"] == {"policy": "fake", "devices": [], "fake": False}
        look = module.graph["gpu_path"]
        assert (look["status"], [a["question"] for a in look["asked"]]) == (
            "exported",
            ["torch.cuda.is_available()"],
        ), look
        assert "device(type='cuda'" not in module.graph["code"]
    assert not result.diagnostics, [d.message for d in result.diagnostics]


async def test_inputs_left_on_the_cpu_are_a_warning_for_gpu_machines(engine: Engine, write: Any) -> None:
    """The model follows `is_available()`, the inputs stay on the CPU: it exports here (no error);
    on a GPU machine torch refuses it. Said as a warning on the op's line, the question related."""
    result = await run(
        engine,
        write,
        """
if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Mixed().to(device).eval()
    torch.export.export(model, (torch.randn(2, 8),))
""",
        mode="both",
    )
    no_cuda_error(result)
    assert [m.status for m in result.modules if m.inputs == "export-call"] == ["exported", "exported"]
    errors = [d.message for d in result.diagnostics if d.severity == "error"]
    assert not errors, errors
    (warning,) = result.diagnostics
    assert (warning.code, warning.severity, warning.mode) == ("gpu-path-refused", "warning", "both")
    assert "Only on a machine with a GPU" in warning.message and "`cuda:0`" in warning.message
    assert "torch refuses the export (`device-mismatch`)" in warning.message, warning.message
    asked = [r for r in warning.related if "is False on this machine" in r.message]
    assert [r.range.start.line for r in asked] == [line_of(warning.path, "torch.cuda.is_available()")]


async def test_forward_that_asks_exports_in_both_tracers(engine: Engine, write: Any) -> None:
    """`torch.cuda.is_available()` in forward gets this machine's answer, also under strict while the
    code is on the fake device (dynamo once traced into ExportLens's answer and refused it)."""
    result = await run(
        engine,
        write,
        """
class Asks(Net):
    def forward(self, x):
        if torch.cuda.is_available():
            return self.fc(x) * 2
        return self.fc(x)


if __name__ == "__main__":
    torch.export.export(Asks().cuda().eval(), (torch.randn(2, 8).cuda(),))
""",
        mode="both",
    )
    assert not result.diagnostics, [d.message for d in result.diagnostics]
    assert [m.status for m in result.modules if m.inputs == "export-call"] == ["exported", "exported"]


async def test_a_data_dependent_branch_is_said_on_its_line_and_nothing_about_cuda(
    engine: Engine, write: Any
) -> None:
    result = await run(
        engine,
        write,
        """
if __name__ == "__main__":
    torch.export.export(Branchy().cuda(), (torch.randn(2, 8).cuda(),))
""",
    )
    no_cuda_error(result)
    (branch,) = [d for d in result.diagnostics if d.code == "data-dependent-branch" and d.module == "Branchy"]
    assert branch.range.start.line == line_of(branch.path, "if x.sum() > 0")
    assert "not looked for" in branch.message and "`cuda:0`" in branch.message, branch.message


async def test_mixed_devices_are_a_device_mismatch_on_the_line(engine: Engine, write: Any) -> None:
    result = await run(
        engine,
        write,
        """
if __name__ == "__main__":
    torch.export.export(Mixed().cuda(), (torch.randn(2, 8, device="cuda"),))
    torch.export.export(Net().to("cuda:0"), (torch.randn(2, 8),))
""",
        mode="both",
    )
    no_cuda_error(result)
    mixed = [d for d in result.diagnostics if d.module == "Mixed"]
    assert {d.code for d in mixed} == {"device-mismatch"}, [d.message for d in mixed]
    # Both tracers refuse it: said once, or once each where torch 2.10's strict marks the statement.
    assert {d.mode for d in mixed} in ({"both"}, {"non-strict", "strict"}), [d.mode for d in mixed]
    assert {d.range.start.line for d in mixed} == {line_of(mixed[0].path, "torch.ones(2, 4)")}
    assert all("`cuda:0` and `cpu`" in d.message for d in mixed), [d.message for d in mixed]
    # The module on cuda:0, its inputs on the CPU: torch stops in the Linear, said from the user's call.
    moved = [d for d in result.diagnostics if d.module == "Net" and d.code == "device-mismatch"]
    assert moved and "`cpu` and `cuda:0`" in moved[0].message, [d.message for d in result.diagnostics]


async def test_cuda_inputs_with_dynamic_shapes(engine: Engine, write: Any) -> None:
    result = await run(
        engine,
        write,
        """
if __name__ == "__main__":
    x = torch.randn(5, 8, device="cuda")
    torch.export.export(Net().cuda(), (x,), dynamic_shapes=({0: Dim("batch")},))
""",
    )
    no_cuda_error(result)
    graph = exported(result, "Net").graph
    assert graph is not None
    assert [(d["input"], d["dim"]) for d in graph["dynamic"]] == [("x", 0)], graph["dynamic"]
    assert graph["placement"]["devices"] == ["cuda:0"]


async def test_mps_and_a_second_gpu(engine: Engine, write: Any) -> None:
    result = await run(
        engine,
        write,
        """
if __name__ == "__main__":
    torch.export.export(Follows().to("mps"), (torch.randn(2, 8, device="mps"),))
    torch.export.export(Net().to("cuda:1"), (torch.randn(2, 8, device="cuda:1"),))
""",
    )
    no_cuda_error(result)
    assert placement(result, "Follows")["devices"] == ["mps:0"]
    assert placement(result, "Net")["devices"] == ["cuda:1"]
    follows = exported(result, "Follows")
    assert follows.graph is not None and "device(type='mps', index=0)" in follows.graph["code"]


async def test_autocast_cuda_is_exported_enabled(engine: Engine, write: Any) -> None:
    """On a CPU-only build torch would disable `autocast("cuda")` ("CUDA is not available"): the
    graph a GPU gets has it enabled, with float16 outputs."""
    result = await run(
        engine,
        write,
        """
if __name__ == "__main__":
    model = Amp().cuda().eval()
    torch.export.export(model, (torch.randn(2, 8, device="cuda"),))
""",
        mode="both",
    )
    no_cuda_error(result)
    assert not result.diagnostics, [d.message for d in result.diagnostics]
    amp = next(m for m in result.modules if m.name == "Amp" and m.mode == "non-strict")
    assert amp.status == "exported" and amp.graph is not None
    assert "wrap_with_autocast('cuda', torch.float16, True" in amp.graph["code"], amp.graph["code"]
    assert not [w for w in amp.graph["warnings"] if "Disabling autocast" in w["message"]]


async def test_a_value_read_while_building_needs_the_real_device(engine: Engine, write: Any) -> None:
    result = await run(
        engine,
        write,
        """
if __name__ == "__main__":
    rows = int(torch.randn(3, device="cuda").abs().sum().item()) + 2
    torch.export.export(Net().cuda(), (torch.randn(rows, 8, device="cuda"),))
""",
    )
    (finding,) = [d for d in result.diagnostics if d.module == "Net"]
    assert (finding.code, finding.severity) == ("needs-real-device", "warning"), finding.message
    assert finding.range.start.line == line_of(finding.path, "rows = int(")
    assert "`cuda:0`" in finding.message and "--device cpu" in finding.message, finding.message


async def test_the_cpu_policy_runs_real_cpu_kernels(engine: Engine, write: Any) -> None:
    """`cpu`: every device is the CPU, so mixed devices meet nowhere and values are real."""
    result = await run(
        engine,
        write,
        """
if __name__ == "__main__":
    rows = int(torch.ones(3, device="cuda").sum().item())
    torch.export.export(Mixed().cuda(), (torch.randn(2, 8, device="cuda"),))
""",
        device="cpu",
    )
    assert not result.diagnostics, [d.message for d in result.diagnostics]
    assert placement(result, "Mixed") == {"policy": "cpu", "devices": [], "fake": False}


async def test_a_huge_cuda_model_is_built_without_allocating(engine: Engine, write: Any) -> None:
    """The meta-weights path (sizing.py) and the fake device are one build: over the limit, the
    CPU weights stay meta and the moved ones are fake on `cuda:0`; the graph is the GPU's."""
    result = await run(
        engine,
        write,
        """
class Wide(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(4096, 512)
        self.proj = torch.nn.Linear(512, 512)

    def forward(self, ids):
        return self.proj(self.embed(ids)) + torch.zeros(512, device=ids.device)


if __name__ == "__main__":
    torch.export.export(Wide().cuda(), (torch.randint(0, 4096, (2, 16), device="cuda"),))
""",
        meta_above_mb=1.0,
    )
    no_cuda_error(result)
    wide = exported(result, "Wide")
    assert wide.graph is not None
    assert wide.graph["weights"]["meta"] is True
    assert wide.graph["placement"]["devices"] == ["cuda:0"]
    assert "device(type='cuda', index=0)" in wide.graph["code"]


async def test_a_huge_model_that_asks_is_sized_and_checked_on_each_path(engine: Engine, write: Any) -> None:
    """With the meta build (sizing.py): here the CPU path on meta weights, exported; the GPU path's
    look builds it on meta and fake `cuda:0`, where the CPU inputs meet the weights."""
    result = await run(
        engine,
        write,
        """
class Wide(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(512, 1024)

    def forward(self, x):
        return self.proj(x)


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.export.export(Wide().to(device), (torch.randn(2, 512),))
""",
        meta_above_mb=1.0,
    )
    wide = exported(result, "Wide")
    assert wide.graph is not None
    assert wide.graph["weights"]["meta"] is True and wide.graph["placement"]["devices"] == []
    assert wide.graph["gpu_path"]["status"] == "failed", wide.graph["gpu_path"]
    # the meta build is said (information), the GPU path's refusal a warning
    assert sorted((d.code, d.severity) for d in result.diagnostics) == [
        ("gpu-path-refused", "warning"),
        ("meta-weights", "information"),
    ]


async def test_a_cuda_only_custom_op_without_fake_kernel(engine: Engine, write: Any) -> None:
    result = await run(
        engine,
        write,
        """
@torch.library.custom_op("exportlens_devices::scale", mutates_args=(), device_types="cuda")
def scale(x: torch.Tensor) -> torch.Tensor:
    return x * 2


class UsesOp(torch.nn.Module):
    def forward(self, x):
        return scale(x) + 1


if __name__ == "__main__":
    torch.export.export(UsesOp(), (torch.randn(3, device="cuda"),))
""",
    )
    (finding,) = [d for d in result.diagnostics if d.module == "UsesOp"]
    assert finding.code == "missing-fake-kernel", finding.message
    assert finding.range.start.line == line_of(finding.path, "return scale(x) + 1")
