"""A job sent to the worker and the outcome that comes back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from ..worker.wire import protocol
from ..worker.wire.compile_records import CompileReport
from ..worker.wire.records import ExportSummary, FailureRecord, LoweringResult, ModuleTree, PartInputs


@dataclass
class Job:
    path: str
    source: str
    module_name: str  # the name the buffer is executed under (never "__main__")
    sys_path: list[str]
    subject: dict[str, Any]  # the module to check: a protocol.TargetSpec, checked by `to_wire`
    strict: bool | None  # None: the export call's own `strict=` decides, else non-strict
    timeout: float = 30.0
    memory_mb: int | None = None
    load_until: list[int] | None = None  # [line, col]: top-level statement the load stops before
    all_failures: bool = True  # look for more failures after the first
    save_to: str | None = None  # write the ExportedProgram here (`torch.export.save`) on success
    # What the job is for: jobs with different purposes never supersede each other
    # (a .pt2 save must not cancel the module's check, nor be cancelled by it).
    purpose: str = "check"
    # Models whose weights would exceed this are built on the meta device (worker/job/sizing.py).
    meta_above_mb: float | None = 1024.0
    # A quick-fix proof (worker/job/verify.py): how to judge the patched `source`; purpose "verify:…".
    verify: dict[str, Any] | None = None  # a protocol.VerifySpec: checked by `to_wire`
    device: protocol.DevicePolicy = "fake"  # where the code's GPU tensors go (worker/job/devices.py)
    graph: bool = False  # build the graph panel's view into the summary (lsp/graph_command.py)
    lowerings: list[str] = field(default_factory=list)  # after a clean export (worker/lowering/)
    quantize: str = "none"  # the executorch target's program quantized first (worker/lowering/quantize.py)
    # Workspace files whose part classes' inputs the export records (worker/parts/part_inputs.py).
    parts_from: tuple[str, ...] = ()
    # Traced as torch.compile does, not exported (worker/job/compiled.py): a protocol.CompileSpec.
    compile: dict[str, Any] | None = None

    @property
    def key(self) -> tuple[str, str, bool | None, str]:
        """A newer job with the same key supersedes an older one."""
        return (self.path, str(self.subject["name"]), self.strict, self.purpose)

    def to_wire(self, job_id: int) -> protocol.JobMessage:
        """The job message; a malformed subject or verify spec raises ProtocolError here, not in the child."""
        message: protocol.JobMessage = {
            "id": job_id,
            "path": self.path,
            "source": self.source,
            "module_name": self.module_name,
            "sys_path": self.sys_path,
            "target": protocol.checked_target(self.subject),
            "strict": self.strict,
            "timeout": self.timeout,
            "memory_mb": self.memory_mb,
            "load_until": self.load_until,
            "all_failures": self.all_failures,
            "save_to": self.save_to,
            "meta_above_mb": self.meta_above_mb,
            "verify": None if self.verify is None else protocol.checked_verify(self.verify),
            "device": self.device,
            "graph": self.graph,
        }
        if self.lowerings:
            message["targets"] = list(self.lowerings)
            if self.quantize != "none":
                message["quantize"] = self.quantize
        if self.parts_from:
            message["parts_from"] = list(self.parts_from)
        if self.compile is not None:
            message["compile"] = cast(protocol.CompileSpec, self.compile)
        return message


@dataclass
class JobOutcome:
    status: protocol.Status
    seconds: float = 0.0
    strict: bool = False
    # The job's records as the worker declared them (worker/wire/records.py), checked when the answer
    # was decoded: diagnosis reads them typed, so a renamed wire field fails the type check.
    summary: ExportSummary | None = None  # exported
    failure: FailureRecord | None = None  # failed
    exit: protocol.ExitInfo | None = None  # how a crashed child ended
    output: str = ""
    reason: str = ""
    timings: dict[str, float] = field(default_factory=dict)  # per stage, from the child
    parts: list[PartInputs] = field(default_factory=list)  # what each part class received
    tree: ModuleTree | None = None  # the class exported and the workspace classes in it
    lowerings: list[LoweringResult] = field(default_factory=list)  # each lowering's verdict
    compile: CompileReport | None = None  # a compile check's report
    raw: protocol.JobAnswer = field(kw_only=True)  # the whole answer (save_error, verify, ...)

    @staticmethod
    def from_wire(answer: protocol.JobAnswer) -> JobOutcome:
        return JobOutcome(
            status=answer["status"],
            seconds=float(answer.get("seconds", 0.0)),
            strict=bool(answer.get("strict", False)),
            summary=answer.get("summary"),
            failure=answer.get("failure"),
            exit=answer.get("exit"),
            output=answer.get("output", ""),
            reason=answer.get("reason", ""),
            timings=dict(answer.get("timings") or {}),
            parts=list(answer.get("parts") or []),
            tree=answer.get("tree"),
            lowerings=list(answer.get("targets") or []),
            compile=answer.get("compile"),
            raw=answer,
        )
