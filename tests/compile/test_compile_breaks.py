"""Where a compile check reads each graph break from (worker/capture/compile_breaks.py), in the
worker's torch: what dynamo logs for it, and `torch._dynamo.explain` on a torch that logs breaks
another way. Both give the same breaks, lines, types and registry ids."""

from __future__ import annotations

from pathlib import Path

from tests.compile.sources import PRINT_AND_BRANCH, line_of
from tests.worker_torch import WorkerTorch

SERVER = str(Path(__file__).resolve().parents[2] / "server")
CHECK = """
import linecache, sys, types, torch
sys.path.insert(0, {server!r})
from exportlens.worker.job import compiled
from exportlens.worker.core.budget import Budget
linecache.cache["/w/train.py"] = (1, None, {source!r}.splitlines(True), "/w/train.py")
module = types.ModuleType("train")
source = {source!r}.split("\\n\\nmodel = ")[0]
exec(compile(source, "/w/train.py", "exec"), module.__dict__)
real_listening, compiled.listening = compiled.listening, lambda: {listens}

class Attempt:
    module, args, kwargs = module.Net(), (torch.randn(2, 8),), {{}}

try:
    report = compiled.compile_check(Attempt(), {{"fullgraph": False, "dynamic": None}}, Budget(120.0))
finally:  # the interpreter is shared by the session's tests: the next one gets torch's own way
    compiled.listening = real_listening
found = [(b["frames"][-1]["line"], b.get("gb_type"), b.get("gb_id")) for b in report["breaks"]]
result = [report["graphs"], found, report["recompiles"]]
"""


def test_the_logged_breaks_and_explains_are_the_same(worker_torch: WorkerTorch) -> None:
    printed, branch = line_of(PRINT_AND_BRANCH, "print(") + 1, line_of(PRINT_AND_BRANCH, "if h.sum()") + 1
    want = [
        3,
        [
            [printed, "Failed to trace builtin operator", "gb0059"],
            [branch, "Data-dependent branching", "gb0170"],
        ],
        [],
    ]
    for listens in (True, False):
        got = worker_torch.run(CHECK.format(server=SERVER, source=PRINT_AND_BRANCH, listens=listens))
        assert got == want, listens


STAND_IN = """
import sys, torch
sys.path.insert(0, {server!r})
from exportlens.worker.job.compiled import without_compile
real, method = torch.compile, torch.nn.Module.compile
net = torch.nn.Linear(2, 2)
with without_compile():
    inside = [torch.compile(net) is net, torch.compile(fullgraph=True)(len) is len, net.compile() is None]
result = [inside, torch.compile is real, torch.nn.Module.compile is method]
"""


def test_compile_builds_nothing_only_while_the_users_file_loads(worker_torch: WorkerTorch) -> None:
    """Outside loading, torch.compile is torch's: its own compiles (non-strict torch.cond's) are real."""
    assert worker_torch.run(STAND_IN.format(server=SERVER)) == [[True, True, True], True, True]
