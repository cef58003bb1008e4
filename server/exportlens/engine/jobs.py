"""A job sent to the worker and the outcome that comes back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Job:
    path: str
    source: str
    module_name: str  # the name the buffer is executed under (never "__main__")
    sys_path: list[str]
    target: dict[str, Any]  # {"name", "class", "inputs": {...}} from discovery
    strict: bool | None  # None: the export call's own `strict=` decides, else non-strict
    timeout: float = 30.0
    memory_mb: int | None = None
    load_until: list[int] | None = None  # [line, col]: top-level statement the load stops before
    all_failures: bool = True  # look for more failures after the first
    save_to: str | None = None  # write the ExportedProgram here (`torch.export.save`) on success
    # What the job is for: jobs with different purposes never supersede each other
    # (a .pt2 save must not cancel the module's check, nor be cancelled by it).
    purpose: str = "check"
    # Models whose weights would exceed this are built on the meta device (worker/sizing.py).
    meta_above_mb: float | None = 1024.0
    # A quick-fix proof (worker/verify.py): how to judge the patched `source`; purpose "verify:…".
    verify: dict[str, Any] | None = None

    @property
    def key(self) -> tuple[str, str, bool | None, str]:
        """A newer job with the same key supersedes an older one."""
        return (self.path, str(self.target["name"]), self.strict, self.purpose)

    def to_wire(self, job_id: int) -> dict[str, Any]:
        return {
            "id": job_id,
            "path": self.path,
            "source": self.source,
            "module_name": self.module_name,
            "sys_path": self.sys_path,
            "target": self.target,
            "strict": self.strict,
            "timeout": self.timeout,
            "memory_mb": self.memory_mb,
            "load_until": self.load_until,
            "all_failures": self.all_failures,
            "save_to": self.save_to,
            "meta_above_mb": self.meta_above_mb,
            "verify": self.verify,
        }


@dataclass
class JobOutcome:
    """status: exported | failed | skipped | crashed | timeout | cancelled."""

    status: str
    seconds: float = 0.0
    strict: bool = False
    summary: dict[str, Any] | None = None
    failure: dict[str, Any] | None = None
    exit: dict[str, Any] | None = None  # how a crashed child ended: {"signal": ...} / {"code": ...}
    output: str = ""
    reason: str = ""
    timings: dict[str, float] = field(default_factory=dict)  # per stage, from the child
    raw: dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def from_wire(message: dict[str, Any]) -> JobOutcome:
        return JobOutcome(
            status=message.get("status", "crashed"),
            seconds=float(message.get("seconds", 0.0)),
            strict=bool(message.get("strict", False)),
            summary=message.get("summary"),
            failure=message.get("failure"),
            exit=message.get("exit"),
            output=message.get("output", ""),
            reason=message.get("reason", ""),
            timings=dict(message.get("timings") or {}),
            raw=message,
        )
