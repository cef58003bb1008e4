"""A discovered module of a document -> the worker job that exports it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..config.settings import MODES
from ..discovery import Subject, discovery_of
from ..document import Document
from ..engine import Job
from ..imports import import_roots
from ..lowerings import ON_CHECK, ON_DEMAND, job_timeout
from ..worker.wire.protocol import DevicePolicy

__all__ = ["MODES", "CheckOptions", "make_job", "tracers"]


@dataclass
class CheckOptions:
    mode: str | None = None  # None: the export call's `strict=` if any, else non-strict
    roots: list[str] = field(default_factory=list)  # workspace roots: importable, "user" code
    all_failures: bool = True  # after a failure, look for the module's other failures too
    meta_above_mb: float | None = 1024.0  # bigger models export with meta weights (no allocation)
    device: DevicePolicy = "fake"  # where tensors the code puts on a GPU go (worker/job/devices.py)
    # (path, module) whose jobs build the graph panel's view: the module a panel shows, no other
    graph_views: frozenset[tuple[str, str]] = frozenset()
    lowerings: tuple[str, ...] = ("export",)  # exportlens.targets: lowerings after a clean export
    on_demand: bool = False  # also the lowerings.ON_DEMAND ones (aoti): its command, the CLI's --target
    # Jobs of different purposes never supersede each other (engine/jobs.py): another file's check
    # run for a document (check/elsewhere.py) must not cancel that file's own, nor be cancelled by it.
    purpose: str = "check"
    compile: str = "auto"  # exportlens.compile: which modules get a compile check (compiled.py)
    quantize: str = "none"  # exportlens.quantize: the executorch target's pt2e flow (lowering/quantize.py)
    # One export's limits (the file's own settings, its pyproject.toml's); 0 / None: the engine's.
    timeout: float = 0.0
    memory_mb: int | None = None  # 0: no cap


def tracers(mode: str | None) -> list[bool | None]:
    """The `strict` flags to run: None lets the export call decide."""
    choices: dict[str | None, list[bool | None]] = {
        None: [None],
        "non-strict": [False],
        "strict": [True],
        "both": [False, True],
    }
    return choices[mode]


def make_job(
    doc: Document,
    subject: Subject,
    strict: bool | None,
    options: CheckOptions,
    parts_from: Sequence[str] = (),
) -> Job:
    module_name, sys_path = import_context(doc.path, options.roots)
    lowered = checked_lowerings(options.lowerings, options.on_demand)
    return Job(
        path=doc.path,
        source=doc.text,
        module_name=module_name,
        sys_path=sys_path,
        subject={"name": subject.name, "class": subject.class_name, "inputs": subject.inputs},
        strict=strict,
        # a C++ compile gets its own; 0: the engine's default
        timeout=job_timeout(lowered, options.timeout),
        memory_mb=options.memory_mb,
        load_until=discovery_of(doc).load_until,
        all_failures=options.all_failures,
        meta_above_mb=options.meta_above_mb,
        device=options.device,
        graph=(doc.path, subject.name) in options.graph_views,
        lowerings=lowered,
        quantize=options.quantize,
        parts_from=tuple(parts_from),
        purpose=options.purpose,
        compile=subject.compile,
    )


def checked_lowerings(lowerings: tuple[str, ...] | list[str], on_demand: bool = False) -> list[str]:
    """The lowerings a check runs after the export: `aoti` only on demand (its command, the CLI)."""
    allowed = (*ON_CHECK, *ON_DEMAND) if on_demand else ON_CHECK
    return [t for t in dict.fromkeys(lowerings) if t in allowed and t != "export"]


def import_context(path: str, roots: list[str]) -> tuple[str, list[str]]:
    """The dotted name the file runs under, and what goes on sys.path.

    Inside packages (folders with __init__.py) the name is dotted from the
    top package, so relative imports work; never "__main__".
    """
    folder = Path(path).parent
    parts = [Path(path).stem]
    while (folder / "__init__.py").exists() and folder.parent != folder:
        parts.insert(0, folder.name)
        folder = folder.parent
    sys_path = [str(folder), str(Path(path).parent), *import_roots(roots)]
    return ".".join(parts), list(dict.fromkeys(sys_path))
