"""Process-level side effects in forward that non-strict export runs once and never keeps.

Which calls are which kind (`sites` finds them in what forward runs), and how each is
explained. Strict export refuses most of these outright (dynamo will not trace `open`, threads
or seeding), so they are warnings of non-strict exports, where they ran while exporting.
"""

from __future__ import annotations

from typing import Any

from ...worker.wire.records import ExportSummary

CALLS = {
    "sys.stdout.write": "output",
    "sys.stderr.write": "output",
    "sys.stdout.flush": "output",
    "sys.stderr.flush": "output",
    "threading.Thread": "thread",
    "threading.Timer": "thread",
    "_thread.start_new_thread": "thread",
    "concurrent.futures.ThreadPoolExecutor": "thread",
    "multiprocessing.Process": "thread",
    "os.chdir": "process-state",
    "os.putenv": "process-state",
    "os.environ.update": "process-state",
    "os.environ.setdefault": "process-state",
    "os.environ.pop": "process-state",
    "sys.path.append": "process-state",
    "sys.path.insert": "process-state",
    "sys.path.extend": "process-state",
    "sys.modules.pop": "process-state",
    "open": "file-io",
    "builtins.open": "file-io",
    "io.open": "file-io",
    "torch.save": "file-io",
    "numpy.save": "file-io",
    "json.dump": "file-io",
    "pickle.dump": "file-io",
    "os.remove": "file-io",
    "os.makedirs": "file-io",
    "shutil.copy": "file-io",
    "torch.manual_seed": "seed",
    "torch.seed": "seed",
    "torch.random.manual_seed": "seed",
    "torch.cuda.manual_seed": "seed",
    "torch.cuda.manual_seed_all": "seed",
    "random.seed": "seed",
    "numpy.random.seed": "seed",
}
FILE_METHODS = {"write_text", "write_bytes"}  # `Path(...).write_text(...)`
PROCESS_MAPPINGS = {"os.environ", "sys.modules"}  # `os.environ["X"] = ...`
KINDS = {"output", "thread", "process-state", "file-io", "seed"}
TENSOR_FACTORIES = {"zeros", "ones", "empty", "full", "tensor", "randn", "rand", "arange", "zeros_like"}

_WHAT = {
    "output": "writes to the console",
    "thread": "starts a thread or process",
    "process-state": "changes the process's state (working folder, environment, `sys.path`, `sys.modules`)",
    "file-io": "reads or writes a file",
    "seed": "seeds a random number generator",
}


def explain(kind: str, text: str, where: str) -> tuple[str, dict[str, Any]]:
    """The warning for a process-level side effect of `kind` at `text` in `where`."""
    return (
        f"`{text}` in {where} {_WHAT[kind]} once, while exporting (non-strict export ran it), and is "
        f"not part of the exported program: it never happens when the program is called, and it "
        f"happened in the process that exported. Move it out of forward, or guard it with "
        f"`if not torch.compiler.is_exporting():`.",
        {"kind": "guard-not-exporting", "name": text.partition("(")[0]},
    )


def explain_cache(name: str, text: str) -> tuple[str, dict[str, Any]]:
    """An in-place write into a plain tensor attribute, which export turned into a constant."""
    return (
        f"`{text}` writes in place into `self.{name}`, a plain tensor attribute, not a registered "
        f"buffer: torch.export made it a constant of the program, so the write is not kept as state "
        f"between calls (a KV cache stays as it was at export). Register it in `__init__` with "
        f'`self.register_buffer("{name}", ..., persistent=False)`: then the update is a buffer mutation.',
        {"kind": "register-buffer", "name": name},
    )


def made_constant(summary: ExportSummary, name: str) -> bool:
    """The export lifted attribute `name` (of the module or a submodule) as a constant tensor."""
    constants = [str(i["target"]) for i in summary["inputs"] if i["kind"] == "constant_tensor"]
    return any(c == name or c.endswith("." + name) for c in constants)
