"""The CLI's first refusal as soon as torch raised it (issue 43, item 2): in the text format a
module's first failure is said on stderr while the passes after it still run (its eager pass, the
search for more, its fix's proof: each runs the slow forward again), and the report on stdout stays
whole and the same at the end. What the user's comments ignore is never said early either."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from tests.cli.test_cli import ROOT

BRANCHY = """
import time

import torch


class Branchy(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:{comment}
            x = x * 2
        started = time.process_time()
        while time.process_time() - started < 3.0:  # each pass after the refusal takes a while
            pass
        return x


torch.export.export(Branchy(), (torch.randn(3),))
"""


def _run(tmp_path: Path, comment: str = "", *flags: str) -> tuple[list[tuple[str, bool]], str, int]:
    """(each stderr line, whether the CLI was still running after it), stdout, the exit status."""
    (tmp_path / "branchy.py").write_text(textwrap.dedent(BRANCHY).format(comment=comment).lstrip())
    env = dict(os.environ, PYTHONPATH=str(ROOT / "server"), EXPORTLENS_CACHE_DIR=str(tmp_path / "store"))
    command = [sys.executable, "-m", "exportlens", "check", "branchy.py", "--no-daemon", *flags]
    with subprocess.Popen(
        command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as cli:
        assert cli.stderr is not None and cli.stdout is not None
        said = []
        for line in cli.stderr:
            time.sleep(0.5)  # the passes after a refusal take seconds: the CLI is still running
            said.append((line.rstrip("\n"), cli.poll() is None))
        out = cli.stdout.read()
        return said, out, cli.wait(timeout=300)


def test_the_first_refusal_is_said_while_the_check_goes_on(tmp_path: Path) -> None:
    said, out, status = _run(tmp_path)
    early = [
        (line, running) for line, running in said if line.startswith("exportlens: found, still checking: ")
    ]
    assert len(early) == 1, said
    line, running = early[0]
    source = (tmp_path / "branchy.py").read_text().splitlines()
    where = f"branchy.py:{source.index('        if x.sum() > 0:') + 1}:12: error[data-dependent-branch]: "
    assert where in line and running, said
    assert status == 1
    assert out.splitlines()[0].startswith(where)
    assert "still checking" not in out  # stdout: the whole report, as before


def test_an_ignored_refusal_is_not_said_early(tmp_path: Path) -> None:
    said, out, status = _run(tmp_path, "  # exportlens: ignore[data-dependent-branch]")
    assert not [line for line, _ in said if "still checking" in line], said
    assert status == 0 and "error[" not in out


def test_with_both_tracers_each_culprit_is_said_once_as_it_comes(tmp_path: Path) -> None:
    """`--mode both`: a tracer's first refusal is not held back for the other's; the final report
    says which tracers refused (check/merge.py)."""
    said, out, status = _run(tmp_path, "", "--mode", "both")
    early = [
        line for line, running in said if line.startswith("exportlens: found, still checking: ") and running
    ]
    source = (tmp_path / "branchy.py").read_text().splitlines()
    where = f"branchy.py:{source.index('        if x.sum() > 0:') + 1}:12: error["
    assert early and where in early[0], said
    assert len(early) == len(set(early)), said
    assert status == 1 and out.splitlines()[0].startswith(where)
