"""A field renamed in the worker's records and not where the server reads it fails the type check.

The records (worker/wire/records.py) reach diagnosis/ and check/ typed (`JobOutcome.failure` is a
`FailureRecord`, ...). Renamed in a copy of the package, mypy strict with the project's plugin
(tools/mypy_record_keys.py: `.get("key")` must name a key) reports every read of the old names:
one read with `[]` and two optional ones read with `.get()`.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parents[2]
RENAMED = {
    # FailureRecord: optional, read with .get() (classification, kinds, mapping)
    "    gb_id: str\n": "    graph_break_id: str\n",
    "    found_by: Literal": "    found_through: Literal",
    # GuardSite: required, read with [] (guards.py)
    "    frames: list[Frame]\n\n\nclass _EagerRequired": "    stack: list[Frame]\n\n\nclass _EagerRequired",
}


def _copy_with_renames(tmp: Path) -> Path:
    package = tmp / "exportlens"
    shutil.copytree(ROOT / "server" / "exportlens", package, ignore=shutil.ignore_patterns("__pycache__"))
    records = package / "worker" / "wire" / "records.py"
    text = records.read_text(encoding="utf-8")
    for old, new in RENAMED.items():
        assert text.count(old) == 1, f"records.py changed: {old!r} is not one field any more"
        text = text.replace(old, new)
    records.write_text(text, encoding="utf-8")
    return package


def _mypy(tmp: Path, package: Path) -> str:
    config = tmp / "mypy.ini"
    config.write_text(
        "[mypy]\npython_version = 3.10\nstrict = True\nignore_missing_imports = True\n"
        f"plugins = {ROOT / 'tools' / 'mypy_record_keys.py'}\n"
        "warn_unused_ignores = False\n"
        # Only the records and what reads them are analysed: the rest is Any (a few seconds).
        "[mypy-exportlens.*]\nfollow_imports = skip\n"
        "[mypy-exportlens.diagnosis.*,exportlens.check.*,exportlens.worker.wire.records]\n"
        "follow_imports = normal\n",
        encoding="utf-8",
    )
    packages = ["-p", "exportlens.diagnosis", "-p", "exportlens.check"]
    out, err, _ = api.run(["--config-file", str(config), "--cache-dir", str(tmp / "cache"), *packages])
    assert not err, err
    return out


def test_a_renamed_record_field_fails_the_type_check(tmp_path: Path, monkeypatch) -> None:
    package = _copy_with_renames(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MYPYPATH", str(tmp_path))
    out = _mypy(tmp_path, package)
    errors = [line for line in out.splitlines() if ": error:" in line]
    where = {
        (Path(line.split(":")[0]).name, key) for line in errors for key in re.findall(r'key "(\w+)"', line)
    }
    assert ("classification.py", "gb_id") in where, out
    assert ("mapping.py", "found_by") in where, out
    assert ("guards.py", "frames") in where, out
    # Every key error is a read of a renamed field (the rest of the package, skipped, is Any).
    keys = {key for line in errors for key in re.findall(r'has no key "(\w+)"', line)}
    assert keys == {"gb_id", "found_by", "frames"}, out
