"""Where a program goes after `torch.export`: the server's names of the lowerings (issue 17).

Derived from the one record per target, `worker/wire/targets.py`, which the worker reads too. The
setting `exportlens.targets`, the CLI's `--target` and the job's `targets` all take these names;
docs/targets.md says what each checks.
"""

from __future__ import annotations

from .worker.wire.targets import BY_NAME, TARGETS

LOWERINGS = tuple(t.name for t in TARGETS)
# Cheap enough to run on every check once enabled; the on-demand ones (a C++ compile): a command or
# a CLI flag only.
ON_CHECK = tuple(t.name for t in TARGETS if not t.on_demand)
ON_DEMAND = tuple(t.name for t in TARGETS if t.on_demand)


def label(name: str) -> str:
    """How a message names the target ("ONNX: ..."); an unknown name as it is."""
    target = BY_NAME.get(name)
    return target.label if target is not None else name


def job_timeout(names: list[str], default: float) -> float:
    """A job's time limit: the longest of its targets' own (a C++ compile), else the check's."""
    own = [t.timeout for n in names if (t := BY_NAME.get(n)) is not None and t.timeout is not None]
    return max(own) if own else default
