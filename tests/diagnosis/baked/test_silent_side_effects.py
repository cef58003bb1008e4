"""Silent corruption: side effects in forward that export runs once and drops (warnings, not errors)."""

from __future__ import annotations

from pathlib import Path

import pytest

from exportlens.engine import Engine
from exportlens.findings import Finding
from tests.conftest import check, line_of

SIDE_EFFECTS = """
    import logging

    import torch

    log = logging.getLogger(__name__)
    CALLS = []


    class Noisy(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 4)
            self.counter = 0

        def forward(self, x):
            print("shape", x.shape)
            log.info("forward called")
            CALLS.append(1)
            self.counter += 1
            self.cache = x * 2
            return self.fc(x) * self.counter


    if __name__ == "__main__":
        torch.export.export(Noisy(), (torch.randn(2, 4),))
"""


def at(path: str, finding: Finding, needle: str, text: str | None = None) -> None:
    """The finding covers exactly `text` (default `needle`) on the line holding `needle`."""
    line = line_of(path, needle)
    source_line = Path(path).read_text(encoding="utf-8").splitlines()[line]
    start = source_line.index(text or needle)
    assert (finding.range.start.line, finding.range.start.character) == (line, start)
    assert (finding.range.end.line, finding.range.end.character) == (line, start + len(text or needle))
    assert finding.severity == "warning"


def by_line(findings: list[Finding], path: str, needle: str) -> Finding:
    line = line_of(path, needle)
    (match,) = [f for f in findings if f.range.start.line == line]
    return match


@pytest.mark.parametrize("mode", ["non-strict", "strict"])
async def test_side_effects_are_warned_on_their_lines(engine: Engine, write, mode: str) -> None:
    path = write(f"noisy_{mode}.py", SIDE_EFFECTS)
    result = await check(engine, path, mode=mode)
    assert [m.status for m in result.modules] == ["exported"]
    found = result.diagnostics
    assert all(f.severity == "warning" and f.module == "Noisy" for f in found), found

    printed = by_line(found, path, "print(")
    assert printed.code == "side-effect-baked"
    at(path, printed, 'print("shape", x.shape)')
    assert "is_exporting" in printed.message
    assert printed.fix == {"kind": "guard-not-exporting", "name": "print"}

    logged = by_line(found, path, "log.info")
    assert logged.code == "side-effect-baked"
    at(path, logged, 'log.info("forward called")')

    appended = by_line(found, path, "CALLS.append")
    assert appended.code == "side-effect-baked" and appended.fix is not None
    at(path, appended, "CALLS.append(1)")
    assert appended.fix["name"] == "CALLS"

    counted = by_line(found, path, "self.counter += 1")
    assert counted.code == "side-effect-baked"
    at(path, counted, "self.counter += 1")
    assert counted.fix == {"kind": "register-buffer", "name": "counter"}
    assert "constant" in counted.message

    cached = by_line(found, path, "self.cache = ")
    assert cached.code == "tensor-attribute-not-buffer"
    at(path, cached, "self.cache = x * 2")
    assert "register_buffer" in cached.message and cached.fix == {"kind": "register-buffer", "name": "cache"}
    assert len(found) == 5


async def test_side_effect_in_a_helper_and_untaken_branch(engine: Engine, write) -> None:
    path = write(
        "helper.py",
        """
        import time

        import torch


        def stamp(x):
            started = time.time()
            return x + started


        class Stamped(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(4, 4)
                self.debug = False

            def forward(self, x):
                if self.debug:
                    print("debugging")
                else:
                    x = x.relu()
                if not torch.compiler.is_exporting():
                    print("eager only")
                return stamp(self.fc(x)) + id(x) % 2


        if __name__ == "__main__":
            torch.export.export(Stamped(), (torch.randn(2, 4),))
    """,
    )
    result = await check(engine, path, mode="non-strict")
    codes = sorted((d.range.start.line, d.code) for d in result.diagnostics)
    assert codes == [
        (line_of(path, "time.time()"), "side-effect-baked"),
        (line_of(path, "id(x)"), "side-effect-baked"),
    ]
    clock = by_line(result.diagnostics, path, "time.time()")
    at(path, clock, "time.time()")
    assert clock.fix == {"kind": "pass-as-input", "call": "time.time"}
    at(path, by_line(result.diagnostics, path, "id(x)"), "id(x)")


@pytest.mark.parametrize("mode", ["non-strict", "strict"])
async def test_side_effects_behind_a_false_flag_are_not_warned(engine: Engine, write, mode: str) -> None:
    # Statically: RECORD is a literal False.  Strict also confirms: dynamo saw no global change.
    path = write(
        f"flagged_{mode}.py",
        """
        import torch

        SEEN = []
        RECORD = False


        class Flagged(torch.nn.Module):
            def forward(self, x):
                if RECORD:
                    SEEN.append(x.shape)
                return x.sin()


        if __name__ == "__main__":
            torch.export.export(Flagged(), (torch.randn(3),))
    """,
    )
    result = await check(engine, path, mode=mode)
    assert result.diagnostics == []


async def test_method_helper_is_followed(engine: Engine, write) -> None:
    path = write(
        "method_helper.py",
        """
        import torch


        class Base(torch.nn.Module):
            def trace(self, x):
                print("é", x.shape)  # non-ASCII before the call: columns are UTF-16 in findings
                return x


        class Child(Base):
            def forward(self, x):
                return self.trace(x).cos()


        if __name__ == "__main__":
            torch.export.export(Child(), (torch.randn(3),))
    """,
    )
    result = await check(engine, path, mode="strict")
    (finding,) = result.diagnostics
    assert finding.code == "side-effect-baked" and "`trace` (called from forward)" in finding.message
    at(path, finding, 'print("é", x.shape)')
