"""All failures at once: one check reports every independent export failure of a module."""

from __future__ import annotations

import getpass
import os
import tempfile
from pathlib import Path
from typing import Any

from exportlens.check.jobs import CheckOptions, make_job
from exportlens.discovery import discover
from exportlens.document import Document
from exportlens.engine import Engine, JobOutcome
from tests.conftest import line_of

THREE_FAILURES = """
    import torch


    class Multi(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(8, 8)

        def forward(self, x):
            h = self.fc(x)
            if h.sum() > 0:
                h = h * 2
            h = scale(h)
            k = (h > 0).nonzero()
            if k.shape[0] > 2:
                h = h - 1
            return h


    def scale(h):
        if h.abs().max() > 100:
            return h / 100
        return h


    if __name__ == "__main__":
        torch.export.export(Multi(), (torch.randn(4, 8),))
"""


async def run(engine: Engine, path: str, strict: bool) -> JobOutcome:
    source = Path(path).read_text(encoding="utf-8")
    found = discover(source, path)
    (subject,) = found.subjects
    options = CheckOptions(roots=[str(Path(path).parent)])
    return await engine.run(make_job(Document(path, source), subject, strict, options))


def culprit_lines(record: dict[str, Any], path: str) -> list[int]:
    """1-based innermost line in `path` of a record."""
    return [f["line"] for f in record["frames"] if f["path"] == path][-1:]


async def test_non_strict_reports_each_data_dependent_branch(engine: Engine, write) -> None:
    path = write("multi.py", THREE_FAILURES)
    outcome = await run(engine, path, strict=False)
    assert outcome.status == "failed" and outcome.failure is not None
    first = outcome.failure
    more = first["more"]
    assert culprit_lines(first, path) == [line_of(path, "if h.sum() > 0") + 1]
    assert [culprit_lines(r, path) for r in more] == [
        [line_of(path, "if h.abs().max() > 100") + 1],
        [line_of(path, "if k.shape[0] > 2") + 1],
    ]
    helper, nonzero = more
    for record in more:
        assert record["stage"] == "export" and record["strict"] is False
        assert record["exc_type"] == "GuardOnDataDependentSymNode"
        assert record["draft_failure_type"] == "DATA_DEPENDENT_ERROR"
        assert "data-dependent" in record["message"]
    # the helper's frame comes with its call site in forward, outermost first
    assert [f["name"] for f in helper["frames"]] == ["forward", "scale"]
    assert helper["frames"][0]["line"] == line_of(path, "h = scale(h)") + 1
    # CPython's byte columns of the failing expression
    line = Path(path).read_text(encoding="utf-8").splitlines()[line_of(path, "if k.shape[0] > 2")]
    frame = nonzero["frames"][-1]
    assert line.encode()[frame["col"] : frame["end_col"]] == b"k.shape[0] > 2"


async def test_the_first_failure_arrives_before_the_search_for_the_others(engine: Engine, write) -> None:
    path = write("early.py", THREE_FAILURES)
    source = Path(path).read_text(encoding="utf-8")
    found = discover(source, path)
    (subject,) = found.subjects
    job = make_job(Document(path, source), subject, False, CheckOptions(roots=[str(Path(path).parent)]))
    early: list[JobOutcome] = []
    outcome = await engine.run(job, early.append)
    (first,) = early  # one early report, before the final outcome
    assert first.status == "failed" and first.failure is not None
    assert "more" not in first.failure  # the search had not run yet
    assert culprit_lines(first.failure, path) == [line_of(path, "if h.sum() > 0") + 1]
    assert first.timings["failure"] > 0 and "more_failures" not in first.timings
    assert outcome.failure is not None and len(outcome.failure["more"]) == 2
    assert outcome.timings["more_failures"] > 0
    clean = await engine.run(
        make_job(
            Document(
                path,
                source.replace("h.sum() > 0", "False")
                .replace("h.abs().max() > 100", "False")
                .replace("k.shape[0] > 2", "False"),
            ),
            subject,
            False,
            CheckOptions(roots=[str(Path(path).parent)]),
        ),
        early.append,
    )
    assert clean.status == "exported" and len(early) == 1  # nothing early for a clean export


async def test_strict_reports_the_others_too(engine: Engine, write) -> None:
    path = write("multi_strict.py", THREE_FAILURES)
    outcome = await run(engine, path, strict=True)
    assert outcome.status == "failed" and outcome.failure is not None
    assert outcome.failure["exc_type"] == "Unsupported"
    more = outcome.failure["more"]
    assert [culprit_lines(r, path) for r in more] == [
        [line_of(path, "if h.abs().max() > 100") + 1],
        [line_of(path, "if k.shape[0] > 2") + 1],
    ]
    assert all(r["strict"] is True for r in more)


async def test_single_failure_has_no_more_and_leaves_no_trace_file(engine: Engine, write) -> None:
    trace_dir = Path(tempfile.gettempdir()) / f"export_{getpass.getuser()}"
    before = sorted(os.listdir(trace_dir)) if trace_dir.exists() else []
    path = write(
        "single.py",
        """
        import torch

        class Guarded(torch.nn.Module):
            def forward(self, x):
                if (x < 0).any():
                    return x.abs()
                return x.tanh()

        if __name__ == "__main__":
            torch.export.export(Guarded(), (torch.ones(3),))
    """,
    )
    outcome = await run(engine, path, strict=False)
    assert outcome.failure is not None and outcome.failure["more"] == []
    after = sorted(os.listdir(trace_dir)) if trace_dir.exists() else []
    assert after == before


async def test_missing_fake_kernel_after_a_branch(engine: Engine, write) -> None:
    path = write(
        "custom_op.py",
        """
        import torch

        @torch.library.custom_op("exportlens_test::twice", mutates_args=())
        def twice(x: torch.Tensor) -> torch.Tensor:
            return x * 2

        class UsesOp(torch.nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    x = x + 1
                return twice(x)

        if __name__ == "__main__":
            torch.export.export(UsesOp(), (torch.ones(3),))
    """,
    )
    outcome = await run(engine, path, strict=False)
    assert outcome.failure is not None
    (record,) = outcome.failure["more"]
    assert record["draft_failure_type"] == "MISSING_FAKE_KERNEL"
    assert culprit_lines(record, path) == [line_of(path, "return twice(x)") + 1]
    assert "register_fake" in record["message"]


async def test_constraint_violation_behind_a_data_dependent_branch(engine: Engine, write) -> None:
    path = write(
        "branch_and_violation.py",
        """
        import torch
        from torch.export import Dim


        class Both(torch.nn.Module):
            def forward(self, x):
                if x.sum() > 0:
                    x = x * 2
                return x.reshape(8, 16)


        if __name__ == "__main__":
            batch = Dim("batch", min=2, max=64)
            torch.export.export(Both(), (torch.randn(8, 16),), dynamic_shapes={"x": {0: batch}})
        """,
    )
    outcome = await run(engine, path, strict=False)
    assert outcome.failure is not None and outcome.failure["exc_type"] == "GuardOnDataDependentSymNode"
    (violation,) = outcome.failure["more"]
    assert violation["exc_type"] == "UserError" and violation["error_type"] == "CONSTRAINT_VIOLATION"
    assert "Constraints violated (batch)" in violation["message"]
    reshape = line_of(path, "x.reshape(8, 16)") + 1
    assert any(f["line"] == reshape for site in violation["guard_sites"] for f in site["frames"])


MASKS_AFTER_THE_FIRST = """
    import torch


    class Masks(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                x = x * 2
            i, j = (x[:, 5:] > 0.3).nonzero(as_tuple=False).T  # YOLO's candidates
            picked = torch.cat((x[i, :4], x[i, j + 5, None], j[:, None].float()), 1)
            positive = x[x > 0]  # a 2-D boolean mask
            return picked.sum() + positive.sum()


    if __name__ == "__main__":
        torch.export.export(Masks(), (torch.rand(10, 9),))
"""


async def test_boolean_masks_and_nonzero_past_the_first_are_no_failures(engine: Engine, write) -> None:
    """With the `if` fixed torch exports this module; real-tensor propagation's own check of the
    masks' outputs once made two more "failures" of those lines."""
    path = write("masks.py", MASKS_AFTER_THE_FIRST)
    for strict in (False, True):
        outcome = await run(engine, path, strict=strict)
        assert outcome.status == "failed" and outcome.failure is not None
        assert outcome.failure.get("more") == [], outcome.failure.get("more")
