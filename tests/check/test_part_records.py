"""A parent's part records are reused while only the parent's own class changes (check/part_records.py,
issue 32 item 2): through the real engine and worker, the jobs the engine is sent say whether the
parent records its parts (`parts_from`), and the part is still checked on its recorded inputs."""

from __future__ import annotations

import textwrap
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
import pytest_asyncio

from exportlens.check import CheckOptions, check_file
from exportlens.engine import Engine, EngineOptions, Job, JobOutcome
from exportlens.findings import FileResult
from tests.conftest import WORKER_PYTHON
from tests.discovery.test_parts_and_guesses import BLOCK

pytestmark = pytest.mark.slow

PARENT_LINE = "        return x + self.attn(self.ln(x))\n"
PART_LINE = "        y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)\n"


class JobsSeen(Engine):
    """The real engine, noting each job it is sent."""

    def __init__(self) -> None:
        super().__init__(EngineOptions(python=WORKER_PYTHON, timeout=60.0))
        self.jobs: list[Job] = []

    async def run(self, job: Job, on_partial: Callable[[JobOutcome], None] | None = None) -> JobOutcome:
        self.jobs.append(job)
        return await super().run(job, on_partial)


@pytest_asyncio.fixture
async def engine() -> AsyncIterator[JobsSeen]:
    engine = JobsSeen()
    yield engine
    await engine.close()


async def check(engine: JobsSeen, path: Path, source: str) -> tuple[FileResult, bool]:
    """The file's result, and whether Block's job recorded its parts."""
    engine.jobs.clear()
    result = await check_file(engine, str(path), source, CheckOptions(roots=[str(path.parent)]))
    (parent,) = [j for j in engine.jobs if j.subject["name"] == "Block"]
    return result, bool(parent.parts_from)


def statuses(result: FileResult) -> dict[str, tuple[str, str]]:
    return {m.name: (m.status, m.inputs) for m in result.modules}


async def test_only_an_edit_outside_the_parents_class_records_again(engine: JobsSeen, tmp_path: Path) -> None:
    path = tmp_path / "gpt_block.py"
    source = textwrap.dedent(BLOCK).lstrip("\n")
    path.write_text(source)
    first, recorded = await check(engine, path, source)
    assert recorded, "the first check records Block's parts"
    assert statuses(first)["SelfAttention"] == ("exported", "recorded")
    # typing in Block: the parts' records of the last check are used, nothing recorded again
    edited = source.replace(PARENT_LINE, "        x = x * 1.0\n" + PARENT_LINE)
    assert edited != source
    second, recorded = await check(engine, path, edited)
    assert not recorded, "only Block's own class changed: its parts were recorded again"
    assert statuses(second)["SelfAttention"] == ("exported", "recorded"), "the part is still checked"
    assert [f.code for f in second.diagnostics] == [f.code for f in first.diagnostics]
    # an edit in the part's class records again
    part_edited = edited.replace(PART_LINE, "        q = q * 1.0\n" + PART_LINE)
    assert part_edited != edited
    third, recorded = await check(engine, path, part_edited)
    assert recorded, "SelfAttention changed: Block records what it receives again"
    assert statuses(third)["SelfAttention"] == ("exported", "recorded")
    # and so does an edit of how Block builds its parts (its __init__)
    built = part_edited.replace("self.attn = SelfAttention()", "self.attn = SelfAttention(n_head=4)")
    assert built != part_edited
    assert (await check(engine, path, built))[1], "Block builds its part otherwise: recorded again"
