"""The job child parses the buffer once: loading it and building its inputs share one syntax tree.

A real child (`child.execute`, real torch, the worker's interpreter) runs with `ast.parse` counting
the calls on each text.  An export call's inputs are built twice (a meta-device dry run to size
the weights, then for real), which once meant three parses of the same buffer; a quick-fix's proof
has two texts, the patched one and the original, each parsed once.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from exportlens.discovery import discover
from exportlens.early_worker import WORKER_DIR
from exportlens.engine import Job
from exportlens.worker.wire import protocol
from tests.conftest import WORKER_PYTHON

from .child_program import LOAD_WORKER

# Loads the worker package by file location (as boot.py does), then runs one job with `ast.parse`
# counted per text; prints the answer's status and the parses of each text named in argv.
COUNT = (
    LOAD_WORKER
    + r"""
import ast

child = importlib.import_module("exportlens_worker.job.child")
protocol = importlib.import_module("exportlens_worker.wire.protocol")
job = protocol.decode_job(sys.stdin.buffer.read())
texts = [job["source"]] + ([job["verify"]["original"]["source"]] if job["verify"] else [])
parses = collections.Counter()
parse = ast.parse

def counted(source, *args, **kwargs):
    if isinstance(source, str):
        parses[source] += 1
    return parse(source, *args, **kwargs)

ast.parse = counted
answer = child.execute(job)
print(json.dumps({"status": answer["status"], "parses": [parses[t] for t in texts]}))
"""
)

SOURCE = """
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x).relu(){patch}


if __name__ == "__main__":
    model = Net()
    x = torch.randn(3, 4)
    torch.export.export(model, (x,))
"""


def make_job(path: Path, source: str, verify: dict[str, Any] | None = None) -> protocol.JobMessage:
    found = discover(source, str(path))
    (subject,) = found.subjects
    assert subject.inputs_kind == "export-call"
    inputs = {"name": subject.name, "class": subject.class_name, "inputs": subject.inputs}
    job = Job(str(path), source, "net", [str(path.parent)], inputs, None, load_until=found.load_until)
    job.meta_above_mb, job.all_failures, job.verify = 1024.0, False, verify
    return job.to_wire(1)


def run(job: protocol.JobMessage) -> dict[str, Any]:
    done = subprocess.run(
        [WORKER_PYTHON or sys.executable, "-c", COUNT, str(WORKER_DIR)],
        input=protocol.encode(job),
        capture_output=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    answer: dict[str, Any] = json.loads(done.stdout.decode().strip().splitlines()[-1])
    return answer


def test_a_check_parses_the_buffer_once(tmp_path: Path) -> None:
    path = tmp_path / "net.py"
    source = textwrap.dedent(SOURCE.format(patch="")).lstrip()
    assert run(make_job(path, source)) == {"status": "exported", "parses": [1]}


def test_a_proof_parses_the_patched_and_the_original_text_once_each(tmp_path: Path) -> None:
    path = tmp_path / "net.py"
    original = textwrap.dedent(SOURCE.format(patch="")).lstrip()
    patched = textwrap.dedent(SOURCE.format(patch=" * 1.0")).lstrip()
    before = discover(original, str(path))
    spec = {
        "compare": "original",
        "original": {
            "source": original,
            "target": {"inputs": before.subjects[0].inputs},
            "load_until": before.load_until,
        },
    }
    assert run(make_job(path, patched, spec)) == {"status": "exported", "parses": [1, 1]}
