"""What the CLI says about examples/ on each torch version, against the main venv's torch (2.13).

    python tools/examples_diff.py [--paths examples/] VERSION...

Runs `exportlens check PATHS --mode both --format json --python <version's venv>` and prints, per
version, every finding whose code, range or link differs from the main venv's, and the modules
whose status differs.  Exit status 1 when any does (docs/torch-versions.md says which differences
are torch's own).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from versions_matrix import main_torch, python_for

ROOT = Path(__file__).resolve().parents[1]
EXPORTLENS = str(Path(sys.executable).parent / "exportlens")

Key = tuple[str, str, str]


def check(python: str, paths: list[str]) -> dict[str, Any]:
    done = subprocess.run(
        [EXPORTLENS, "check", *paths, "--mode", "both", "--format", "json", "--python", python],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if done.returncode not in (0, 1, 3):  # 3: a timeout, which the comparison shows
        raise SystemExit(f"exportlens check failed with {python}:\n{done.stderr[-2000:]}")
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def findings(report: dict[str, Any]) -> dict[Key, list[str]]:
    """(file, module, mode) -> 'code line:col-line:col link' of each finding, and each status."""
    out: dict[Key, list[str]] = {}
    for file in report["files"]:
        name = Path(file["path"]).name
        for d in file["diagnostics"]:
            r = d["range"]
            start, end = r["start"], r["end"]
            where = f"{start['line'] + 1}:{start['character']}-{end['line'] + 1}:{end['character']}"
            link = (d.get("url") or "").rsplit("/", 1)[-1]
            key = (name, str(d.get("module")), str(d.get("mode")))
            out.setdefault(key, []).append(f"{d['code']} {where} {link}")
        for m in file["modules"]:
            out.setdefault((name, m["name"], f"{m['mode']} status"), []).append(m["status"])
    return out


def diff(base: dict[Key, list[str]], other: dict[Key, list[str]]) -> list[str]:
    return [
        f"  {file} {module} [{mode}]: {base.get(k, ['-'])} -> {other.get(k, ['-'])}"
        for k in sorted(set(base) | set(other))
        if sorted(base.get(k, [])) != sorted(other.get(k, []))
        for file, module, mode in [k]
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("versions", nargs="+")
    parser.add_argument("--paths", nargs="+", default=["examples/"])
    args = parser.parse_args()
    main_version = main_torch()
    base = findings(check(sys.executable, args.paths))
    differs = False
    for version in args.versions:
        if version == main_version:
            continue
        lines = diff(base, findings(check(python_for(version, main_version), args.paths)))
        differs = differs or bool(lines)
        print(f"== torch {version} vs {main_version}: {len(lines)} difference(s)")
        print("\n".join(lines) if lines else "  none")
    return 1 if differs else 0


if __name__ == "__main__":
    sys.exit(main())
