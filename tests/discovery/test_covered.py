"""A class an export covers is checked by that export only (covered.py), through the real worker.

What the file cannot tell (a factory behind a registry, a wrapper built in the script) the export
job tells: the class it exported and the workspace classes in it (worker/parts/module_tree.py). That
class gets no guessed-inputs job and no finding of its own; the export's findings name it (`Net`,
exported as `model`); its parts are checked with what they receive there; a class no export
covers is still checked on a guess, after the exports. The CLI checks the files with export calls
first and tells the others what those cover.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from exportlens.engine import Engine
from tests.conftest import check, line_of
from tests.paths import ROOT
from tests.shared_sources import NET, RUNTIME_ONLY, TO_DEVICE


def _exported(result: object) -> list[object]:
    return [m for m in result.modules if m.status != "skipped"]  # type: ignore[attr-defined]


async def test_net_to_device_with_a_data_dependent_if_is_one_error_on_the_if_line(
    engine: Engine, write
) -> None:
    """Issue 26's case: the script's top level builds `model = Net().to(device)` and exports it."""
    path = write("to_device.py", TO_DEVICE)
    result = await check(engine, path)
    (finding,) = result.diagnostics
    assert (finding.severity, finding.code) == ("error", "data-dependent-branch")
    assert finding.range.start.line == line_of(path, "if y.sum() > 0:")
    assert "refused `Net`" in finding.message and finding.module == "Net"
    assert [m.name for m in _exported(result)] == ["Net"]  # one job: no second export on a guess


@pytest.mark.parametrize("shape", list(RUNTIME_ONLY))
async def test_the_export_job_names_the_class_the_file_cannot(engine: Engine, write, shape: str) -> None:
    path = write(f"{shape}.py", NET + RUNTIME_ONLY[shape])
    result = await check(engine, path)
    (finding,) = result.diagnostics  # no `guessed-inputs-failed` on Net
    assert (finding.severity, finding.range.start.line) == ("error", line_of(path, "if y.sum() > 0:"))
    exported_as = "model" if shape == "registry" else "wrapped.module"
    assert f"refused `Net` (exported as `{exported_as}`)" in finding.message
    by_name = {m.name: m for m in result.modules}
    assert by_name["Net"].status == "skipped"  # its one check is the export's
    (job,) = _exported(result)
    assert job.tree is not None and job.tree["root"] == {"class": "Net", "file": path}


PARTS = """
    import torch
    import torch.nn as nn


    class Block(nn.Module):
        def __init__(self, width):
            super().__init__()
            self.fc = nn.Linear(width, width)

        def forward(self, x):
            B, T, C = x.shape
            return torch.relu(self.fc(x)).view(B, T, C)


    class Stack(nn.Module):
        def __init__(self, block, depth, width):
            super().__init__()
            self.blocks = nn.Sequential(*[block(width) for _ in range(depth)])

        def forward(self, x):
            return self.blocks(x)


    class Spare(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            B, T, C = x.shape
            return self.fc(x)


    def create(config):
        return config["arch"](Block, config["depth"], 8)


    if __name__ == "__main__":
        model = create({"arch": Stack, "depth": 2})
        torch.export.export(model, (torch.randn(2, 5, 8),))
"""


async def test_parts_found_at_run_time_get_their_real_inputs_and_others_still_a_guess(
    engine: Engine, write
) -> None:
    path = write("stack.py", PARTS)
    result = await check(engine, path)
    by_name = {m.name: m for m in result.modules}
    assert by_name["create"].status == "exported" and by_name["create"].tree["root"]["class"] == "Stack"
    assert by_name["Stack"].status == "skipped"
    # a 3-D tensor, as Stack gives it: no guess from its first Linear (2-D, `B, T, C =` fails)
    assert (by_name["Block"].inputs, by_name["Block"].status) == ("recorded", "exported")
    # no export covers Spare: checked on a guess, after the export, and that guess fails
    assert by_name["Spare"].inputs == "inferred"
    assert [(f.module, f.code) for f in result.diagnostics] == [("Spare", "guessed-inputs-failed")]


def test_the_cli_tells_a_model_file_what_a_script_exports_of_it(tmp_path: Path) -> None:
    """`exportlens check .`: the script's export covers the classes of `nets.py` it builds through
    a factory (no "no example inputs", no guess that fails on a 2-D tensor); the class nothing
    exports keeps its "no example inputs"."""
    (tmp_path / "nets.py").write_text(
        "import torch\nimport torch.nn as nn\n\n\n"
        "class Stem(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.fc = nn.Linear(8, 8)\n\n    def forward(self, x):\n        B, T, C = x.shape\n"
        "        return self.fc(x).reshape(B, T * C)\n\n\n"
        "class Head(nn.Module):\n    def __init__(self, width):\n        super().__init__()\n"
        "        self.fc = nn.Linear(width, 2)\n\n    def forward(self, x):\n        return self.fc(x)\n\n\n"
        "class Net(nn.Module):\n    def __init__(self, width, stem):\n        super().__init__()\n"
        "        self.stem, self.head = stem(), Head(width)\n\n"
        "    def forward(self, x):\n        return self.head(self.stem(x))\n\n\n"
        "class Spare(nn.Module):\n    def __init__(self, width):\n        super().__init__()\n\n"
        "    def forward(self, x):\n        return x\n\n\n"
        "def load_model(config):\n    return {'net': Net}[config['arch']](config['width'], Stem)\n",
        encoding="utf-8",
    )
    (tmp_path / "export_nets.py").write_text(
        "import torch\nfrom nets import load_model\n\n"
        "model = load_model({'arch': 'net', 'width': 40})\n"
        "torch.export.export(model, (torch.randn(2, 5, 8),))\n",
        encoding="utf-8",
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "server"), EXPORTLENS_CACHE_DIR=str(tmp_path / ".cache"))
    command = [sys.executable, "-m", "exportlens", "check", ".", "--format", "json"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    files = {Path(f["path"]).name: f for f in json.loads(done.stdout)["files"]}
    said = [(d["module"], d["code"]) for d in files["nets.py"]["diagnostics"]]
    assert said == [("Spare", "no-example-inputs")]
    (module,) = files["export_nets.py"]["modules"]
    assert (module["status"], module["class"]) == ("exported", "Net")
