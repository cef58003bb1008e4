"""torch's own verdict on every export of the real-code corpus: the ground truth, without ExportLens.

    .venv/bin/python bench/realcode_truth.py [CORPUS] [--case NAME] [--json OUT]

For each case folder of CORPUS (default tests/data/realcode/corpus), each `export_*.py` script
runs as `__main__` with `torch.export.export` replaced by a recorder that exports each call
twice, non-strict and strict, catches the exception, and goes on with the script. Each call
prints: the script line of the call, the tracer, `exported` or torch's exception type and
first line, and the innermost frame inside the case folder (Python's traceback; for strict,
also the `File "...", line N` of dynamo's "from user code:" text). A refusal with no frame
(torch's constraint violations) prints the shape guards torch logged with their user line
("[guard added] ... at file:line"), to find the culprit by reading them.

Nothing of ExportLens runs here: this is what the corpus tests are checked against, by hand.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import runpy
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT / "tests" / "data" / "realcode" / "corpus"
_DETAIL = ("specialized", "Not all values", "must always be equal", "generated guard", "Suggested fixes")
_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


class GuardLog(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if "guard added" in text or "runtime_assert" in text or "set_replacement" in text:
            self.lines.append(text.splitlines()[0][:300])


def _detail(text: str) -> list[str]:
    """The lines of a constraint violation that say what happened, and torch's suggested fixes."""
    lines = text.splitlines()
    keep: list[str] = []
    for i, line in enumerate(lines):
        if any(key in line for key in _DETAIL):
            keep.append(line.strip()[:300])
        if "Suggested fixes" in line:
            keep.extend(follow.strip()[:300] for follow in lines[i + 1 : i + 4] if follow.strip())
    return keep[:10]


def _innermost(exc: BaseException, folder: Path) -> tuple[str, int] | None:
    frames = [
        (f.filename, f.lineno or 0)
        for f in traceback.extract_tb(exc.__traceback__)
        if Path(f.filename).resolve().is_relative_to(folder)
        and not Path(f.filename).name.startswith("export_")
    ]
    text = str(exc)
    if "from user code:" in text:
        text_frames = [
            (p, int(n))
            for p, n in _FRAME.findall(text.split("from user code:", 1)[1])
            if Path(p).resolve().is_relative_to(folder) and not Path(p).name.startswith("export_")
        ]
        if text_frames:
            return str(Path(text_frames[-1][0]).relative_to(folder)), text_frames[-1][1]
    if frames:
        return str(Path(frames[-1][0]).resolve().relative_to(folder)), frames[-1][1]
    return None


def run_script(
    script: Path,
    folder: Path,
    guards: GuardLog,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    tracers: tuple[bool, ...] = (False, True),
) -> list[dict[str, Any]]:
    """The script's export calls, each in the `tracers` (strict=), both by default; `on_record` is
    told each as torch answers (bench/speed_rows.py times torch's refusal by it)."""
    real_export = torch.export.export
    records: list[dict[str, Any]] = []

    def recorder(mod: Any, args: Any, kwargs: Any = None, **options: Any) -> Any:
        caller = sys._getframe(1)
        line = caller.f_lineno if Path(caller.f_code.co_filename).resolve() == script.resolve() else 0
        options.pop("strict", None)
        result = None
        for strict in tracers:
            guards.lines.clear()
            record: dict[str, Any] = {
                "script": script.name,
                "line": line,
                "module": type(mod).__name__,
                "mode": "strict" if strict else "non-strict",
            }
            started = time.perf_counter()
            try:
                result = real_export(mod, args, kwargs, strict=strict, **options)
                record["verdict"] = "exported"
            except Exception as exc:
                record["seconds"] = time.perf_counter() - started  # torch's own, before the record's
                record["verdict"] = type(exc).__name__
                record["message"] = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
                record["frame"] = _innermost(exc, folder)
                record["detail"] = _detail(str(exc))
                if record["frame"] is None:
                    record["guards"] = list(guards.lines)
            record.setdefault("seconds", time.perf_counter() - started)
            records.append(record)
            if on_record is not None:
                on_record(record)
        return result

    torch.export.export = recorder  # type: ignore[assignment]
    saved = list(sys.path)
    sys.path[:0] = [str(script.parent)]
    try:
        runpy.run_path(str(script), run_name="__main__")
    except Exception as exc:  # the script itself failed after (or before) its exports
        records.append(
            {
                "script": script.name,
                "line": 0,
                "module": "",
                "mode": "",
                "verdict": "script-error",
                "message": f"{type(exc).__name__}: {exc}"[:300],
                "frame": _innermost(exc, folder),
            }
        )
    finally:
        torch.export.export = real_export  # type: ignore[assignment]
        sys.path[:] = saved
        for name in [
            n
            for n, m in sys.modules.items()
            if getattr(m, "__file__", None) and Path(m.__file__).resolve().is_relative_to(folder)
        ]:  # type: ignore[arg-type]
            del sys.modules[name]
    return records


def run_models(folder: Path, guards: GuardLog) -> list[dict[str, Any]]:
    """The modules ExportLens builds itself from a model file (inferred / example_inputs() inputs):
    which classes and which inputs come from ExportLens's static discovery, the verdict from torch."""
    import importlib

    sys.path.insert(0, str(ROOT / "server"))
    from exportlens.check.jobs import import_context
    from exportlens.discovery import discover

    records: list[dict[str, Any]] = []
    for path in sorted(folder.rglob("*.py")):
        if path.name.startswith("export_") or path.name == "__init__.py":
            continue
        found = discover(path.read_text(encoding="utf-8"), str(path))
        subjects = [t for t in found.subjects if t.inputs_kind not in ("none", "export-call")]
        if not subjects:
            continue
        name, extra = import_context(str(path), [])
        saved = list(sys.path)
        sys.path[:0] = extra
        try:
            module = importlib.import_module(name)
        except Exception as exc:
            records.append(
                {
                    "script": str(path.relative_to(folder)),
                    "line": 0,
                    "module": "",
                    "mode": "",
                    "verdict": "import-error",
                    "message": f"{type(exc).__name__}: {exc}"[:300],
                }
            )
            continue
        finally:
            sys.path[:] = saved
        for subject in subjects:
            cls = getattr(module, subject.class_name)
            namespace = dict(vars(module))
            expr = subject.inputs.get("expr") or f"{subject.class_name}().example_inputs()"
            for strict in (False, True):
                guards.lines.clear()
                record: dict[str, Any] = {
                    "script": str(path.relative_to(folder)),
                    "module": subject.name,
                    "line": getattr(subject.node, "lineno", 0),
                    "mode": "strict" if strict else "non-strict",
                    "inputs": expr,
                }
                try:
                    model = cls()
                    args = eval(expr, namespace)  # the expression ExportLens would build the inputs from
                    torch.export.export(model, tuple(args), strict=strict)
                    record["verdict"] = "exported"
                except Exception as exc:
                    record["verdict"] = type(exc).__name__
                    record["message"] = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
                    record["frame"] = _innermost(exc, folder)
                records.append(record)
    return records


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", nargs="?", default=str(DEFAULT))
    parser.add_argument("--case", action="append")
    parser.add_argument("--json")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    corpus = Path(args.corpus).resolve()
    cases = sorted(p for p in corpus.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))
    if not args.child:  # one process per case: dynamo's caches and `model` modules never cross cases
        scratch = tempfile.mkdtemp(prefix="realcode_truth_")
        everything = []
        for folder in cases:
            if args.case and folder.name not in args.case:
                continue
            # A fresh file per run: a case whose child dies writes nothing, and is not read from
            # an earlier run's file.
            out = Path(scratch, f"{folder.name}.json")
            command = [
                sys.executable,
                __file__,
                str(corpus),
                "--case",
                folder.name,
                "--child",
                "--json",
                str(out),
            ]
            subprocess.run(command, check=False, stderr=subprocess.DEVNULL)
            if out.exists():
                everything.extend(json.loads(out.read_text(encoding="utf-8")))
        shutil.rmtree(scratch, ignore_errors=True)
        if args.json:
            Path(args.json).write_text(json.dumps(everything, indent=1), encoding="utf-8")
        return
    guards = GuardLog()
    for name in ("torch.fx.experimental.symbolic_shapes",):
        logger = logging.getLogger(name)
        logger.addHandler(guards)
        logger.setLevel(logging.INFO)
    torch._logging.set_logs(dynamic=logging.INFO)
    logging.getLogger("torch.fx.experimental.symbolic_shapes").propagate = False
    everything: list[dict[str, Any]] = []
    for folder in cases:
        if args.case and folder.name not in args.case:
            continue
        runs = [run_script(script, folder.resolve(), guards) for script in sorted(folder.glob("export_*.py"))]
        runs.append(run_models(folder.resolve(), guards))
        for run in runs:
            for record in run:
                record["case"] = folder.name
                everything.append(record)
                where = record.get("frame")
                place = f"{where[0]}:{where[1]}" if where else "-"
                print(
                    f"{folder.name:18} {record['script']}:{record['line']:<4} {record['module']:22} "
                    f"{record['mode']:10} {record['verdict']:34} {place}"
                )
                if record.get("message"):
                    print(f"{'':20}{record['message'][:200]}")
                for line in record.get("detail", []):
                    print(f"{'':22}> {line[:220]}")
                for guard in record.get("guards", [])[-12:]:
                    print(f"{'':24}| {guard[:220]}")
    if args.json:
        Path(args.json).write_text(json.dumps(everything, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
