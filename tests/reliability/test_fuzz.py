"""Fuzzing (hypothesis): discovery and the failure-to-diagnostic mapping on generated Python.

Never an unhandled exception; every range produced lies inside the document (LSP lines: split
on \\r\\n, \\r, \\n; characters in UTF-16 code units, at most the line's length).

Sizes: profile `reliability-ci` (default, well under a minute); `EXPORTLENS_FUZZ=long` for
the long run (many more examples).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from exportlens.check.keys import module_keys
from exportlens.check.static_findings import anchor_range, no_inputs_finding, syntax_finding
from exportlens.diagnosis import DiagnosisContext, diagnose
from exportlens.discovery import discover
from exportlens.document import Document
from exportlens.findings import Finding, Range
from exportlens.textpos import SourceText, utf16_len

# CI runs the same examples every time (a stop must not fail on a new random draw); the long
# profile explores, and what it finds becomes a regression test.
settings.register_profile(
    "reliability-ci",
    max_examples=400,
    deadline=None,
    derandomize=True,
    database=None,  # no examples replayed from an earlier run on this machine
    suppress_health_check=list(HealthCheck),
)
settings.register_profile(
    "reliability-long", max_examples=20_000, deadline=None, suppress_health_check=list(HealthCheck)
)
PROFILE = settings.get_profile(
    "reliability-long" if os.environ.get("EXPORTLENS_FUZZ") == "long" else "reliability-ci"
)
PATH = "/workspace/fuzzed/model.py"
RECORDS = json.loads(
    (Path(__file__).parents[1] / "data" / "torch222_records.json").read_text(encoding="utf-8")
)
COUNTS: dict[str, int] = {"discover": 0, "diagnose": 0, "findings": 0}

# -- generated Python ------------------------------------------------------------
names = st.sampled_from(["Net", "MLP", "Conv", "Model", "Ünïcode", "模型", "A", "nn", "torch", "x", "Net2"])
ints = st.sampled_from(["0", "1", "3", "16", "-1", "2**40", "n", "x.shape[0]", "True", "None"])
imports = st.sampled_from(
    [
        "import torch",
        "import torch as t",
        "import torch.nn as nn",
        "from torch import nn",
        "from torch.export import export, Dim",
        "from torch import *",
        "import torch, os",
        "",
    ]
)
layers = st.builds(
    lambda kind, a, b: f"self.l = {kind}({a}, {b})",
    st.sampled_from(
        ["torch.nn.Linear", "nn.Linear", "nn.Conv2d", "nn.Embedding", "nn.LSTM", "t.nn.Conv1d", "Foo"]
    ),
    ints,
    ints,
)
statements = st.one_of(
    layers,
    st.sampled_from(
        [
            "return x",
            "y = x * 2",
            "if x.sum() > 0:\n    return x",
            "return {'a': x}",
            "pass",
            "return (torch.randn(2, 3),)",
            "return torch.ones(4), {'k': torch.zeros(1)}",
            "super().__init__()",
            "for i in range(3):\n    x = x + i",
            "raise ValueError('é')",
            "s = '😀\\u2028\\x0c'",
            "# comment with \\t and é",
            "# a page break \x0c and a line separator \u2028 (not line ends for Python)",
            "s = '\x1c\x1d\x1e\x85'",
            "\treturn x",
            "yield x",
            "lambda: (",
        ]
    ),
)


@st.composite
def methods(draw: Any) -> str:
    name = draw(st.sampled_from(["forward", "__init__", "example_inputs", "get_example_inputs", "helper"]))
    args = draw(st.sampled_from(["self", "self, x", "self, x, y=None", "self, *args, **kwargs", "x", ""]))
    body = draw(st.lists(statements, min_size=1, max_size=4))
    deco = draw(st.sampled_from(["", "@staticmethod\n", "@torch.no_grad()\n"]))
    lines = "\n".join("    " + line for stmt in body for line in stmt.split("\n"))
    return f"{deco}def {name}({args}):\n{lines}"


@st.composite
def classes(draw: Any) -> str:
    name = draw(names)
    base = draw(
        st.sampled_from(
            ["torch.nn.Module", "nn.Module", "t.nn.Module", "Net", "object", "", "Base, nn.Module"]
        )
    )
    body = draw(st.lists(methods(), min_size=0, max_size=3))
    text = "\n\n".join(body) or "pass"
    header = f"class {name}({base}):" if base else f"class {name}:"
    return header + "\n" + "\n".join("    " + line for line in text.split("\n"))


export_calls = st.builds(
    lambda fn, cls, args, extra: f"{fn}({cls}(), {args}{extra})",
    st.sampled_from(
        ["torch.export.export", "export", "torch.export.draft_export", "t.export.export", "torch.jit.trace"]
    ),
    names,
    st.sampled_from(["(torch.randn(2, 3),)", "(x,)", "()", "args", "(torch.ones(n),)", "{'x': 1}", ""]),
    st.sampled_from(
        [
            "",
            ", strict=True",
            ", strict=False",
            ', dynamic_shapes={"x": {0: Dim("b", min=2, max=8)}}',
            ", dynamic_shapes=(Dim.AUTO,)",
            ", **kw",
        ]
    ),
)
toplevel = st.one_of(
    imports,
    classes(),
    export_calls,
    export_calls.map(lambda c: 'if __name__ == "__main__":\n    ' + c),
    st.sampled_from(["n = 4", "x = torch.randn(n, 3)", "b = Dim('b')", "def helper():\n    return 1", ""]),
)
newlines = st.sampled_from(["\n", "\r\n", "\r", "\n\n"])


@st.composite
def python_sources(draw: Any) -> str:
    parts = draw(st.lists(toplevel, min_size=1, max_size=7))
    text = draw(newlines).join(parts)
    if draw(st.booleans()):  # mutate: delete / insert / replace a random slice
        for _ in range(draw(st.integers(1, 3))):
            i = draw(st.integers(0, len(text)))
            j = draw(st.integers(i, min(len(text), i + 12)))
            text = text[:i] + draw(st.text(max_size=6)) + text[j:]
    if draw(st.booleans()):
        text = text.replace("\n", draw(newlines))
    return text


# -- the property ----------------------------------------------------------------
def lsp_lines(source: str) -> list[str]:
    return re.split(r"\r\n|\r|\n", source)


def assert_inside(r: Range, source: str, what: object) -> None:
    lines = lsp_lines(source)
    for p in (r.start, r.end):
        assert 0 <= p.line < len(lines), (what, r, len(lines))
        assert 0 <= p.character <= utf16_len(lines[p.line]), (what, r, lines[p.line])
    assert (r.start.line, r.start.character) <= (r.end.line, r.end.character), (what, r)


def assert_findings_inside(findings: list[Finding], source: str) -> None:
    for f in findings:
        COUNTS["findings"] += 1
        if f.path == PATH:
            assert_inside(f.range, source, f)
        for related in f.related:
            if related.path == PATH:
                assert_inside(related.range, source, related)


@PROFILE
@given(python_sources())
@example(
    "import torch\n# a page break \x0c here\n"
    "class Net(torch.nn.Module):\n    def forward(self, x):\n        return x\n"
)
def test_discovery_never_fails_and_stays_inside(source: str) -> None:
    COUNTS["discover"] += 1
    found = discover(source, PATH)
    text = SourceText(source)
    if found.error is not None:
        assert_findings_inside([syntax_finding(PATH, text, found.error)], source)
        return
    module_keys(source, found, ("settings",))
    lines = lsp_lines(source)
    for subject in found.subjects:
        r = anchor_range(text, subject)
        assert_inside(r, source, subject.name)
        if subject.class_name == subject.name:  # the class's own name, on the class's line
            units = lines[r.start.line].encode("utf-16-le")[2 * r.start.character : 2 * r.end.character]
            assert units.decode("utf-16-le") == subject.name, (r, lines[r.start.line])
        assert_findings_inside([no_inputs_finding(PATH, text, subject)], source)
        json.dumps(subject.inputs)  # the wire spec is JSON


# -- failure records ---------------------------------------------------------------
frame_lines = st.one_of(st.integers(-3, 60), st.just(10**9))
frames = st.fixed_dictionaries(
    {
        "path": st.sampled_from(
            [PATH, "/usr/lib/python3/site-packages/torch/x.py", "<string>", "/elsewhere.py"]
        ),
        "line": frame_lines,
        "name": st.sampled_from(["forward", "<module>", "helper", "__init__"]),
    },
    optional={"end_line": frame_lines, "col": st.integers(-2, 300), "end_col": st.integers(-2, 300)},
)
message_bits = st.one_of(
    st.text(max_size=40),
    frame_lines.map(lambda n: f'\n  File "{PATH}", line {n}, in forward\n    if x.sum() > 0:\n'),
    st.sampled_from(
        [
            "Could not guard on data-dependent expression Eq(u0, 1) (unhinted: Eq(u0, 1))",
            "Constraints violated (batch)! - Not all values of batch = L['x'].size()[0] in the range [2, 8]",
            "Dynamic control flow is not supported at the moment.",
            "torch._dynamo.exc.Unsupported: call_function BuiltinVariable(print)",
            "Expected cond to return tensors",
            'User code:\n  File "{path}", line 3, in forward',
        ]
    ),
)


@st.composite
def records(draw: Any) -> dict[str, Any]:
    case = draw(st.sampled_from(RECORDS))
    record: dict[str, Any] = json.loads(json.dumps(case["record"]).replace("{path}", PATH))
    if draw(st.booleans()):
        record["message"] = "".join(draw(st.lists(message_bits, max_size=4))) or record["message"]
    if draw(st.booleans()):
        record["frames"] = draw(st.lists(frames, max_size=4))
    if draw(st.booleans()):
        record["stage"] = draw(st.sampled_from(["import", "inputs", "export", "internal", "init", "?"]))
    if draw(st.booleans()):
        record["exc_type"] = draw(
            st.sampled_from(["SystemExit", "MemoryError", "UserError", "Unsupported", "X"])
        )
        record["exc_mro"] = [record["exc_type"], "Exception", "BaseException", "object"]
    for key, value in draw(
        st.dictionaries(
            st.sampled_from(
                ["gb_type", "error_type", "cond", "op", "gb_id", "draft_failure_type", "found_by"]
            ),
            st.text(max_size=20),
            max_size=3,
        )
    ).items():
        record[key] = value
    if draw(st.booleans()):
        record["guard_sites"] = [
            {
                "expr": draw(st.text(max_size=10)),
                "kind": "eq",
                "symbols": ["s0"],
                "sources": {"s0": ["L['x'].size()[0]"]},
                "frames": draw(st.lists(frames, max_size=3)),
            }
            for _ in range(draw(st.integers(0, 2)))
        ]
    if draw(st.booleans()):
        record["chain"] = [
            {
                "exc_type": "RuntimeError",
                "message": draw(st.text(max_size=20)),
                "frames": draw(st.lists(frames, max_size=2)),
            }
        ]
    return record


@PROFILE
@given(python_sources(), records(), st.sampled_from(["strict", "non-strict"]), st.data())
def test_diagnose_never_fails_and_stays_inside(
    source: str, record: dict[str, Any], mode: str, data: Any
) -> None:
    COUNTS["diagnose"] += 1
    found = discover(source, PATH)
    text = SourceText(source)
    anchors = [anchor_range(text, t) for t in found.subjects] or [Range.of(0, 0, 0, 0)]
    anchor = data.draw(st.sampled_from(anchors))
    if data.draw(st.booleans()):
        record["more"] = [json.loads(json.dumps(record))]
    ctx = DiagnosisContext(
        document=Document(PATH, source), module="Net", mode=mode, anchor=anchor, roots=["/workspace"]
    )
    findings = diagnose(record, ctx)
    assert findings, "a failure record must give at least one finding"
    assert_findings_inside(findings, source)


def test_fuzz_counts() -> None:
    """Prints how much was fuzzed (run after the two properties, in file order)."""
    print(f"\nfuzzed: {COUNTS}")
    assert COUNTS["discover"] >= PROFILE.max_examples // 2 and COUNTS["diagnose"] >= PROFILE.max_examples // 2


def test_a_column_past_a_blank_line_never_ends_before_it_starts() -> None:
    """Found by the long fuzz: a frame at column 1 of a line holding only spaces, its end past
    the text: the range was (5, 1)-(5, 0)."""
    text = SourceText("a = 1\n    \nb = 2\n")
    for end_line in (None, 1, 0):
        span = text.span(1, 1, end_line, 0 if end_line is not None else None)
        assert (span.start.line, span.start.character) <= (span.end.line, span.end.character)
