"""torch's own verdict on every compile script of the real-code corpus, without ExportLens.

    PYTHON bench/compile_truth.py [CORPUS] [--case NAME]

For each case folder of CORPUS (default tests/data/realcode/corpus), each `compile_*.py` and
`train_*.py` script runs as `__main__` in its own process of this interpreter (its torch), with
`TORCH_LOGS=graph_breaks` and `torch.compile` given `backend="eager"` (dynamo traces, nothing is
compiled). Each graph break torch logs prints as `case script: file:line gbNNNN`: the file and
line of torch's "Graph break in user code at", and the id of its `gb/gbNNNN.html` link (`-` when
torch gives none); when that file is not the case's (`copy.py`), the innermost frame of its "User
code traceback" that is, after `in`.
tests/compile/test_compile_realcode.py's TORCH_SAYS is checked against this, by hand, per torch.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

DEFAULT = Path(__file__).resolve().parent.parent / "tests" / "data" / "realcode" / "corpus"
_AT = re.compile(r"Graph break in user code at (?P<file>.+):(?P<line>\d+)\s*$")
_GB = re.compile(r"/gb/(?P<id>gb\d+)\.html")
_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')
RUN = """
import runpy, sys, torch
real = torch.compile
torch.compile = lambda model=None, **options: real(model, **{**options, "backend": "eager"})
runpy.run_path(sys.argv[1], run_name="__main__")
"""


def breaks(script: Path) -> list[str]:
    """`file:line gbNNNN` of each graph break torch logs running `script` in its folder."""
    env = {**os.environ, "TORCH_LOGS": "graph_breaks"}
    done = subprocess.run(
        [sys.executable, "-c", RUN, script.name], cwd=script.parent, env=env, capture_output=True, text=True
    )
    found: list[list[str]] = []  # [file:line, id, the case's innermost frame] per break
    for line in done.stderr.splitlines():
        if (at := _AT.search(line)) is not None:
            found.append([f"{Path(at['file']).name}:{at['line']}", "-", ""])
        elif (gb := _GB.search(line)) is not None and found and found[-1][1] == "-":
            found[-1][1] = gb["id"]
        elif (frame := _FRAME.search(line)) is not None and found:
            file = script.parent / frame["file"]  # relative: the script's own, run in its folder
            if script.parent.resolve() in file.resolve().parents:  # the case's files, its packages too
                found[-1][2] = f"{file.name}:{frame['line']}"
    said = [f"{at} {gb}" + (f" in {case}" if case and case != at else "") for at, gb, case in found]
    if done.returncode != 0:
        said.append(f"(exit {done.returncode}: {done.stderr.strip().splitlines()[-1:]})")
    return said


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--case")
    args = parser.parse_args()
    import torch

    print(f"torch {torch.__version__}")
    for folder in sorted(p for p in args.corpus.iterdir() if p.is_dir()):
        if args.case and folder.name != args.case:
            continue
        for script in sorted([*folder.glob("compile_*.py"), *folder.glob("train_*.py")]):
            for found in breaks(script) or ["no graph break"]:
                print(f"{folder.name} {script.name}: {found}")


if __name__ == "__main__":
    main()
