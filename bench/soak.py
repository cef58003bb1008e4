"""Soak the real language server with random edits; print figures.

    PYTHONPATH=server python bench/soak.py [--edits N] [--seed S]

N defaults to $EXPORTLENS_SOAK_EDITS, else 200 (CI: tests/reliability/test_soak.py runs 200;
the long run is `EXPORTLENS_SOAK_EDITS=1000`). Edits are incremental didChange's that insert
and delete lines in two modules' `forward`, sometimes a data-dependent `if` (a failure) and
later remove it again, with random pauses so some checks finish and others are superseded.

Checked, and returned as figures:
- no publishDiagnostics is ever for an older version than one the server has already
  received (after each edit a request round-trip confirms the server has it; a publish that
  arrives after that confirmation for an older version is "stale");
- at every sync point (every 10th edit, and the end) the published diagnostics match the text;
- server RSS after warm-up vs at the end;
- at the end, the server's only child is its worker, idle (no job child, no zombie).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.lsp.conftest import Session, start, stop  # noqa: E402
from tests.procs import alive, cmdline, descendants  # noqa: E402

HEAD = ["import torch", "", ""]
SOAK = [
    "class Soak(torch.nn.Module):",
    "    def __init__(self):",
    "        super().__init__()",
    "        self.fc = torch.nn.Linear(8, 8)",
    "",
    "    def forward(self, x):",
    "        y = self.fc(x)",
]
OTHER = [
    "class Other(torch.nn.Module):",
    "    def forward(self, x):",
    "        y = x + 1",
]
TAIL = ["        return y", ""]
SOAK_INPUTS = ["    def example_inputs(self):", "        return (torch.ones(2, 8),)", "", ""]
OTHER_INPUTS = ["    def example_inputs(self):", "        return (torch.ones(3),)", ""]
BLOCKS = [
    ["        y = y * 1.0"],
    ["        y = torch.relu(y)"],
    ["        # a comment"],
    ["        if y.sum() > 0:", "            y = y - 1"],  # data-dependent: export refuses it
]


@dataclass
class Document:
    """The buffer as fixed lines plus inserted blocks, so every edit keeps it valid Python."""

    soak: list[list[str]] = field(default_factory=list)  # blocks inserted in Soak.forward
    other: list[list[str]] = field(default_factory=list)
    gap: int = 0  # extra blank lines between the classes (moves Other's lines)

    def parts(self) -> list[list[str]]:
        return [
            HEAD,
            SOAK,
            *self.soak,
            TAIL,
            SOAK_INPUTS,
            [""] * self.gap,
            OTHER,
            *self.other,
            TAIL,
            OTHER_INPUTS,
        ]

    def text(self) -> str:
        return "\n".join(line for part in self.parts() for line in part)

    def line_of(self, part: list[str]) -> int:
        count = 0
        for p in self.parts():
            if p is part:
                return count
            count += len(p)
        raise ValueError("no such part")

    def failing(self) -> set[str]:
        has_if = {
            name: any(is_if(b) for b in blocks)
            for name, blocks in (("Soak", self.soak), ("Other", self.other))
        }
        return {name for name, yes in has_if.items() if yes}


def is_if(block: list[str]) -> bool:
    return block[0].lstrip().startswith("if ")


def random_edit(doc: Document, rng: random.Random) -> types.TextDocumentContentChangePartial:
    """Apply one random edit to `doc`; the LSP change that does the same to the buffer."""
    kind = rng.random()
    blocks = doc.soak if rng.random() < 0.6 else doc.other
    anchor = SOAK if blocks is doc.soak else OTHER
    if kind < 0.15:  # a blank line between the classes, in or out
        where = doc.line_of(OTHER)
        if doc.gap and rng.random() < 0.5:
            doc.gap -= 1
            return change(where - 1, 0, where, 0, "")
        doc.gap += 1
        return change(where, 0, where, 0, "\n")
    if blocks and (kind < 0.55 or len(blocks) > 6):  # delete a block
        block = blocks[rng.randrange(len(blocks))]
        start = doc.line_of(block)
        del blocks[next(i for i, b in enumerate(blocks) if b is block)]  # not remove(): equal blocks
        return change(start, 0, start + len(block), 0, "")
    block = list(rng.choice(BLOCKS))  # a new list: parts are found by identity
    if is_if(block) and any(is_if(b) for b in blocks):
        block = list(BLOCKS[0])  # one `if` per forward at most
    index = rng.randint(0, len(blocks))
    start = doc.line_of(blocks[index]) if index < len(blocks) else doc.line_of(anchor) + len(anchor)
    if index == len(blocks) and blocks:
        start = doc.line_of(blocks[-1]) + len(blocks[-1])
    blocks.insert(index, block)
    return change(start, 0, start, 0, "".join(line + "\n" for line in block))


def change(
    line: int, col: int, end_line: int, end_col: int, text: str
) -> types.TextDocumentContentChangePartial:
    where = types.Range(
        start=types.Position(line=line, character=col), end=types.Position(line=end_line, character=end_col)
    )
    return types.TextDocumentContentChangePartial(range=where, text=text)


async def soak(edits: int, seed: int, root: Path, sync_every: int = 10) -> dict[str, Any]:
    rng = random.Random(seed)
    session: Session = await start(root, {"debounceMs": 20, "timeoutSeconds": 60})
    started = time.monotonic()
    figures: dict[str, Any] = {"edits": edits, "seed": seed}
    try:
        doc = Document()
        path = root / "soak.py"
        path.write_text(doc.text(), encoding="utf-8")
        uri = path.resolve().as_uri()
        await session.open("soak.py", doc.text())
        record = session.record
        acks: list[tuple[int, int]] = []  # (publishes received before the ack, version the server has)
        warm_rss: float | None = None
        syncs = mismatches = 0
        for n in range(1, edits + 1):
            edit = random_edit(doc, rng)
            version = session.versions[uri] = session.versions[uri] + 1
            session.client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    content_changes=[edit],
                )
            )
            status = await session.command("exportlens.status")  # the server has `version` now
            acks.append((len(record.published), version))
            if n % sync_every == 0 or n == edits:
                mark = len(record.checked)
                mark = min(
                    mark, next((i for i, c in enumerate(record.checked) if c["version"] >= version), mark)
                )
                diagnostics = await session.wait_checked(uri, version, mark)
                syncs += 1
                failing = {
                    d.data["module"] for d in diagnostics if isinstance(d.data, dict) and d.data.get("module")
                }
                wanted = doc.failing()
                if failing != wanted or any(d.code != "data-dependent-branch" for d in diagnostics):
                    mismatches += 1
                    print(
                        f"mismatch at edit {n}: {[(d.code, d.message[:80]) for d in diagnostics]} "
                        f"want {sorted(wanted)}\n{doc.text()}",
                        file=sys.stderr,
                    )
                status = await session.command("exportlens.status")
                if warm_rss is None and n >= min(50, edits // 4):
                    warm_rss = float(status["rssMb"])
            else:
                await asyncio.sleep(rng.choice([0.0, 0.0, 0.005, 0.03, 0.1, 0.4]))
        final = await session.command("exportlens.status")
        stale = []
        for index, published in enumerate(record.published):
            if published.uri != uri or published.version is None:
                continue
            known = max((v for mark, v in acks if mark <= index), default=0)
            if published.version < known:
                stale.append((index, published.version, known))
        # the worker finishes reaping superseded jobs' children: wait (bounded), no sleep-then-assert
        pid, worker = final["pid"], final["workerPid"]
        deadline = time.monotonic() + 60
        while [p for p, _ in descendants(pid) if p != worker] and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        left = [(p, s, cmdline(p)) for p, s in descendants(pid) if p != worker]
        figures.update(
            seconds=round(time.monotonic() - started, 1),
            publishes=sum(1 for p in record.published if p.uri == uri),
            checks_finished=sum(1 for c in record.checked if c["uri"] == uri),
            stale_publishes=len(stale),
            stale_examples=stale[:5],
            sync_points=syncs,
            sync_mismatches=mismatches,
            rss_warm_mb=warm_rss,
            rss_final_mb=float(final["rssMb"]),
            rss_growth_pct=round(100 * (float(final["rssMb"]) - (warm_rss or 0)) / (warm_rss or 1), 1),
            worker_pid=worker,
            left_behind=left,
            final_lines=len(doc.text().splitlines()),
        )
    finally:
        pids = (
            [p for p, _ in descendants(session.client._server.pid, spares=True)]
            if session.client._server
            else []
        )  # type: ignore[attr-defined]
        server_pid = session.client._server.pid if session.client._server else None  # type: ignore[attr-defined]
        await stop(session)
    deadline = time.monotonic() + 60
    everything = [p for p in [server_pid, *pids] if p]
    while any(alive(p) for p in everything) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    figures["alive_after_shutdown"] = [p for p in everything if alive(p)]
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=int(os.environ.get("EXPORTLENS_SOAK_EDITS", "200")))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        figures = asyncio.run(soak(args.edits, args.seed, Path(tmp).resolve()))
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
