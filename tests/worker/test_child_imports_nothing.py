"""A job child imports none of the worker's own modules: the worker has them all before it forks.

Each fork inherits what the worker imported (warmup.prepare_for_forking); a module the child
imports itself is loaded again in every child, on every check: three such modules once cost
13-21 ms of a 90 ms MLP check. A real `child.execute` (real torch, the worker's interpreter) runs
after `prepare_for_forking`, on a clean module with a part (its inputs recorded), on a failing
one (the search for more failures) and strict; what it imported of the worker is printed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from exportlens.check import CheckOptions
from exportlens.check.jobs import make_job
from exportlens.discovery import discovery_of
from exportlens.document import Document
from exportlens.early_worker import WORKER_DIR
from exportlens.worker.wire import protocol
from tests.conftest import WORKER_PYTHON

from .child_program import LOAD_WORKER

# Loads the worker package by file location (as boot.py does), prepares it as the worker does,
# runs each job of stdin in this process and prints the worker modules the jobs imported.
RUN = (
    LOAD_WORKER
    + r"""
import torch  # noqa: F401
importlib.import_module("exportlens_worker.host.warmup").prepare_for_forking()
child = importlib.import_module("exportlens_worker.job.child")
protocol = importlib.import_module("exportlens_worker.wire.protocol")
before = set(sys.modules)
statuses = [child.execute(protocol.decode_job(line))["status"] for line in sys.stdin.buffer]
ours = sorted(m for m in set(sys.modules) - before if m.startswith("exportlens_worker"))
print(json.dumps({"statuses": statuses, "imported": ours}))
"""
)

SOURCE = """
import torch


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        return self.fc(x).relu()


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x):
        return self.block(x).sum()


class Branchy(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x.cos() + x[x > 0].sum()


if __name__ == "__main__":
    torch.export.export(Net(), (torch.randn(3, 4),))
    torch.export.export(Branchy(), (torch.randn(3, 4),))
"""


def test_a_job_imports_none_of_the_worker(tmp_path: Path) -> None:
    path = tmp_path / "net.py"
    path.write_text(textwrap.dedent(SOURCE).lstrip())
    doc = Document(str(path), path.read_text())
    subjects = {t.name: t for t in discovery_of(doc).subjects}
    options = CheckOptions(roots=[str(tmp_path)])
    jobs = [
        make_job(doc, subjects["Net"], False, options, [str(path)]),  # records what Block gets
        make_job(doc, subjects["Branchy"], False, options),  # fails: the search for more runs
        make_job(doc, subjects["Net"], True, options),
    ]
    wire = b"".join(protocol.encode(job.to_wire(n)) for n, job in enumerate(jobs, 1))
    done = subprocess.run(
        [WORKER_PYTHON or sys.executable, "-c", RUN, str(WORKER_DIR)],
        input=wire,
        capture_output=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    answer = json.loads(done.stdout.decode().strip().splitlines()[-1])
    assert answer["statuses"] == ["exported", "failed", "exported"]
    assert answer["imported"] == []
