"""The engine <-> worker protocol (worker/wire/protocol.py) without torch: every message survives its
encoding unchanged, every op, event and inputs kind has such a sample here, and a line that is
not a message is refused with an error that says what is wrong."""

from __future__ import annotations

import re
import typing
from collections.abc import Callable
from typing import Any

import pytest

from exportlens.engine import Job, JobOutcome
from exportlens.worker.wire import protocol

FRAME: protocol.Frame = {
    "path": "/w/net.py",
    "line": 7,
    "end_line": 7,
    "col": 4,
    "end_col": 18,
    "name": "forward",
}
RECORD: protocol.FailureRecord = {
    "stage": "export",
    "strict": False,
    "exc_type": "GuardOnDataDependentSymNode",
    "exc_mro": ["GuardOnDataDependentSymNode", "RuntimeError", "Exception", "BaseException", "object"],
    "message": "Could not guard on data-dependent expression u0 > 0",
    "frames": [FRAME, {"path": "/lib/site-packages/x.py", "line": None}],
    "chain": [{"exc_type": "ValueError", "exc_mro": ["ValueError"], "message": "inner", "frames": [FRAME]}],
    "gb_type": "Data-dependent branching",
    "gb_id": "gb0170",
    "cond": "u0 > 0",
    "eager": {"ok": False, "exc_type": "ValueError", "message": "bad"},
    "guard_sites": [
        {
            "expr": "Eq(s0, 4)",
            "kind": "eq-const",
            "symbols": ["s0"],
            "sources": {"s0": ["L['x'].size()[0]"]},
            "frames": [FRAME],
        }
    ],
    "more": [
        {
            "stage": "export",
            "exc_type": "RuntimeError",
            "message": "Operator mylib.op has no fake impl registered",
            "op": "mylib.op",
            "found_by": "real-tensor-propagation",
            "frames": [FRAME],
        }
    ],
    "more_skipped": "meta",
    "output_site": {"path": "/w/net.py", "line": 12, "name": "forward"},
}
SUMMARY: protocol.ExportSummary = {
    "ops": 2,
    "code": "def forward(self, x): ...",
    "code_truncated": False,
    "inputs": [{"kind": "parameter", "name": "p_fc_weight", "target": "fc.weight"}],
    "outputs": [{"kind": "user_output", "name": "relu", "target": None}],
    "dynamic": [{"input": "x", "dim": 0, "symbol": "s0", "min": 2, "max": None}],
    "lines": {"/w/net.py": {"7": ["aten.linear.default", "aten.relu.default"]}},
    "warnings": [{"category": "UserWarning", "message": "careful", "path": "/w/net.py", "line": 3}],
    "facts": {
        "training_ops": [
            {
                "op": "aten.dropout.default",
                "module": "drop",
                "module_class": "Dropout",
                "path": "/w/net.py",
                "line": 8,
            }
        ],
        "op_names": ["aten.relu.default"],
    },
    "weights": {"meta": False, "bytes": 1024},
}
INPUTS: dict[str, protocol.InputsSpec] = {
    "export-call": {
        "kind": "export-call",
        "call": [12, 4, 12, 40],
        "prelude": [[10, 4], [11, 4]],
        "line": 11,
    },
    "example-inputs": {"kind": "example-inputs", "class": "Net", "method": "example_inputs"},
    "inferred": {"kind": "inferred", "class": "Net", "expr": "(torch.randn(2, 16),)"},
    "compile-call": {"kind": "compile-call", "call": [19, 6, 19, 20], "prelude": [[18, 4]]},
    "recorded": {
        "kind": "recorded",
        "class": "Attention",
        "parent": {"kind": "export-call", "call": [12, 4, 12, 40], "prelude": [], "line": 11},
        "module": "blocks.0.attn",
        "args": [{"tensor": {"shape": [3, 5, 16], "dtype": "float32", "dims": ["batch", None, None]}}],
        "kwargs": {
            "mask": {"value": None},
            "pos": {"tensor": {"shape": [5], "dtype": "int64", "dims": [None], "low": 0, "high": 4}},
        },
        "dims": {"batch": {"name": "batch", "hint": "dim", "size": 3, "min": 2, "max": None}},
        "meta": True,
    },
}
PARTS: list[protocol.PartInputs] = [
    {
        "class": "Attention",
        "module": "blocks.0.attn",
        "args": [{"tuple": [{"tensor": {"shape": [3], "dtype": "bool", "dims": ["auto0"]}}, {"value": 2}]}],
        "kwargs": {"extra": {"dict": [["k", {"list": [{"value": 1.5}]}]]}},
        "dims": {"auto0": {"name": "auto0", "hint": "auto", "size": 3, "min": None, "max": None}},
        "meta": True,
    },
    {
        "class": "Head",
        "module": "head",
        "args": [],
        "kwargs": {},
        "dims": {},
        "unsupported": "a Foo argument",
    },
]


def job(inputs: protocol.InputsSpec, verify: protocol.VerifySpec | None = None) -> protocol.JobMessage:
    return {
        "id": 3,
        "path": "/w/net.py",
        "source": "import torch\n# é, a non-ASCII line\n",
        "module_name": "net",
        "sys_path": ["/w"],
        "target": {"name": "Net", "class": "Net", "inputs": inputs},
        "strict": None,
        "timeout": 30.0,
        "memory_mb": None,
        "load_until": [14, 0],
        "all_failures": True,
        "save_to": None,
        "meta_above_mb": 1024.0,
        "verify": verify,
    }


VERIFY: protocol.VerifySpec = {
    "compare": "original",
    "branch_line": 9,
    "branch_polarity": False,
    "original": {"source": "x = 1\n", "target": {"inputs": INPUTS["inferred"]}, "load_until": None},
}
ANSWERS: list[protocol.JobAnswer] = [
    {
        "status": "exported",
        "strict": True,
        "seconds": 0.4,
        "timings": {"load": 0.01, "fork": 0.002},
        "summary": SUMMARY,
    },
    {"status": "exported", "saved": "/w/Net.pt2", "summary": SUMMARY, "parts": PARTS},
    {"status": "failed", "strict": False, "failure": RECORD, "output": "printed\n", "output_dropped": 0},
    {
        "status": "exported",
        "verify": {
            "exports": True,
            "matches": None,
            "branches_checked": 0,
            "reason": "",
            "refined": {"x": {"0": {"name": "d", "min": 2, "max": None}}},
        },
    },
    {"status": "skipped", "reason": "int is not a torch.nn.Module"},
    {"status": "crashed", "exit": {"signal": "SIGSEGV"}},
    {"status": "crashed", "exit": {"code": 7}},
    {"status": "timeout", "seconds": 30.0},
    {"status": "cancelled", "seconds": 0.0},
    {"status": "failed", "failure": RECORD, "parts": PARTS[:1]},  # what a part received, on failure too
    {  # what the job exported (module_tree.py): a library's class has no workspace file
        "status": "failed",
        "failure": RECORD,
        "tree": {
            "root": {"class": "Net", "file": "/w/net.py"},
            "parts": [{"class": "Block", "file": "/w/blocks.py"}],
        },
    },
    {
        "status": "exported",
        "summary": SUMMARY,
        "tree": {"root": {"class": "GPT2Model", "file": None}, "parts": []},
    },
    {  # a compile check (worker/job/compiled.py): its graphs, breaks and recompiles
        "status": "exported",
        "strict": True,
        "compile": {
            "fullgraph": False,
            "graphs": 3,
            "breaks": [
                {
                    "message": "Failed to trace builtin operator ...",
                    "frames": [{"path": "/w/net.py", "line": 12, "name": "forward"}],
                    "gb_type": "Failed to trace builtin operator",
                    "gb_id": "gb0059",
                    "explanation": "Dynamo does not know how to trace builtin operator `print`",
                    "hints": ["Avoid calling builtin `print`"],
                }
            ],
            "recompiles": [
                {
                    "reason": "0/1: tensor 'x' size mismatch at index 0. expected 3, actual 4",
                    "dim": "shape[0]",
                    "sizes": [2, 3, 4],
                    "frames": [{"path": "/w/net.py", "line": 13, "name": "forward"}],
                }
            ],
        },
    },
]
TO_WORKER: list[protocol.ToWorker] = [
    *({"op": "job", "job": job(spec)} for spec in INPUTS.values()),
    {"op": "job", "job": job(INPUTS["export-call"], VERIFY)},
    {"op": "job", "job": {**job(INPUTS["export-call"]), "parts_from": ["/w/net.py", "/w/blocks.py"]}},
    {"op": "cancel", "id": 3},
]
FROM_WORKER: list[protocol.FromWorker] = [
    {"event": "ready", "torch": "2.13.0", "python": "3.11.7", "pid": 42, "warmup_seconds": 1.5},
    {
        "event": "fatal",
        "message": "ModuleNotFoundError: No module named 'torch'",
        "python": "/usr/bin/python3",
        "torch": None,
        "torch_origin": None,
    },
    {"event": "partial", "id": 3, "answer": ANSWERS[2]},
    *({"event": "result", "id": 3, "answer": answer} for answer in ANSWERS),
]
REPORTS: list[protocol.ChildReport] = [
    {"partial": True, "answer": ANSWERS[2]},
    {"partial": False, "answer": ANSWERS[0], "entered": 1234.5},
]
DECODERS: list[tuple[Callable[[bytes], Any], list[Any]]] = [
    (protocol.decode_to_worker, TO_WORKER),
    (protocol.decode_from_worker, FROM_WORKER),
    (protocol.decode_job, [m["job"] for m in TO_WORKER if m["op"] == "job"]),
    (protocol.decode_report, REPORTS),
]


@pytest.mark.parametrize(("decode", "message"), [(d, m) for d, ms in DECODERS for m in ms])
def test_every_message_decodes_to_what_was_encoded(decode: Callable[[bytes], Any], message: Any) -> None:
    line = protocol.encode(message)
    assert line.endswith(b"\n") and line.count(b"\n") == 1  # one message, one line
    assert decode(line) == message


def test_the_samples_cover_every_op_event_and_inputs_kind() -> None:
    assert {m["op"] for m in TO_WORKER} == set(typing.get_args(protocol.OpName))
    assert {m["event"] for m in FROM_WORKER} == set(typing.get_args(protocol.EventName))
    kinds = {
        typing.get_args(typing.get_type_hints(spec)["kind"])[0]
        for spec in typing.get_args(protocol.InputsSpec)
    }
    assert set(INPUTS) == kinds
    assert {a["status"] for a in ANSWERS} == set(typing.get_args(protocol.Status))


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (b"not json\n", "engine -> worker: not a JSON line"),
        (b"[1, 2]\n", "engine -> worker: message is list, not an object"),
        (b'{"op": "ping", "id": 1}\n', "engine -> worker: message.op is 'ping', not one of 'job', 'cancel'"),
        (b'{"op": "shutdown"}\n', "engine -> worker: message.op is 'shutdown'"),
        (b'{"op": "cancel"}\n', "engine -> worker: message (CancelOp) lacks id"),
        (
            b'{"op": "job", "job": {"id": 1}}\n',
            "engine -> worker: message.job (JobMessage) lacks all_failures, load_until",
        ),
    ],
)
def test_a_malformed_line_is_refused_with_what_is_wrong(line: bytes, says: str) -> None:
    with pytest.raises(protocol.ProtocolError, match="^" + re.escape(says)):
        protocol.decode_to_worker(line)


def test_nested_errors_name_the_place() -> None:
    message = job({"kind": "none", "class": "Net", "why": "constructor"})
    with pytest.raises(
        protocol.ProtocolError, match=re.escape("message.target.inputs.kind is 'none', not one of")
    ):
        protocol.decode_job(protocol.encode(message))
    record = {
        "stage": "export",
        "exc_type": "X",
        "message": "m",
        "more": [{"stage": "export", "exc_type": "Y"}],
    }
    line = protocol.encode({"event": "result", "id": 1, "answer": {"status": "failed", "failure": record}})
    with pytest.raises(
        protocol.ProtocolError,
        match=re.escape("message.answer.failure.more[0] (FailureRecord) lacks message"),
    ):
        protocol.decode_from_worker(line)
    with pytest.raises(protocol.ProtocolError, match=re.escape("message.answer.status is 'done'")):
        protocol.decode_from_worker(b'{"event": "result", "id": 1, "answer": {"status": "done"}}')


def test_a_recorded_part_is_built_from_a_parent_with_real_inputs_only() -> None:
    guessed_parent = dict(INPUTS["recorded"], parent=INPUTS["inferred"])
    with pytest.raises(
        protocol.ProtocolError,
        match=re.escape(
            "message.target.inputs.parent.kind is 'inferred', not one of 'export-call', 'example-inputs'"
        ),
    ):
        protocol.decode_job(protocol.encode(job(guessed_parent)))  # type: ignore[arg-type]
    line = protocol.encode(
        {"event": "result", "id": 1, "answer": {"status": "exported", "parts": [{"class": "A"}]}}
    )
    with pytest.raises(
        protocol.ProtocolError, match=re.escape("message.answer.parts[0] (PartInputs) lacks args")
    ):
        protocol.decode_from_worker(line)


def test_the_engine_checks_a_job_before_sending_it_and_reads_the_answer_typed() -> None:
    made = Job(
        "/w/net.py",
        "x = 1\n",
        "net",
        ["/w"],
        {"name": "Net", "class": "Net", "inputs": INPUTS["inferred"]},
        None,
    )
    wire = made.to_wire(5)
    assert protocol.decode_to_worker(protocol.encode({"op": "job", "job": wire})) == {
        "op": "job",
        "job": wire,
    }
    unsendable = Job(
        "/w/net.py", "", "net", [], {"name": "Net", "class": "Net", "inputs": {"kind": "none"}}, None
    )
    with pytest.raises(protocol.ProtocolError, match=re.escape("job: target.inputs.kind is 'none'")):
        unsendable.to_wire(6)
    outcome = JobOutcome.from_wire(ANSWERS[2])
    assert (outcome.status, outcome.failure, outcome.output) == ("failed", RECORD, "printed\n")
    assert JobOutcome.from_wire(ANSWERS[5]).exit == {"signal": "SIGSEGV"}
