"""The results store (persist/): exact round trips, and a context that changes exactly when what
the results depend on changes (an imported workspace file, the interpreter's packages, torch's
version, the settings) and not otherwise."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from exportlens.document import Document
from exportlens.findings import Finding, ModuleResult, Range, Related
from exportlens.persist import fingerprint
from exportlens.persist.store import ResultStore, Stored
from exportlens.reading import read_document

SALT = ("non-strict", None)
ENV = fingerprint.Environment("env-digest", "2.13.0")


def workspace(root: Path) -> Document:
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("from .layers import Block\n")
    (root / "pkg" / "layers.py").write_text(
        "import torch\nfrom . import util\n\nclass Block(torch.nn.Module): pass\n"
    )
    (root / "pkg" / "util.py").write_text("SCALE = 2\n")
    (root / "unrelated.py").write_text("X = 1\n")
    model = root / "model.py"
    model.write_text("import torch\nfrom pkg import Block\n\nclass Net(torch.nn.Module):\n    pass\n")
    return read_document(str(model.resolve()))


def test_imported_files_are_followed_through_packages(tmp_path: Path) -> None:
    doc = workspace(tmp_path)
    names = [
        Path(p).relative_to(tmp_path.resolve()).as_posix()
        for p in fingerprint.imported_files(doc, [str(tmp_path)])
    ]
    assert names == ["pkg/__init__.py", "pkg/layers.py", "pkg/util.py"]


def test_context_changes_with_what_results_depend_on(tmp_path: Path) -> None:
    doc = workspace(tmp_path)
    roots = [str(tmp_path)]
    before = fingerprint.context(doc, roots, ENV, SALT)
    assert before == fingerprint.context(doc, roots, ENV, SALT)
    (tmp_path / "unrelated.py").write_text("X = 2\n")
    assert fingerprint.context(doc, roots, ENV, SALT) == before  # not imported: no effect
    (tmp_path / "pkg" / "util.py").write_text("SCALE = 3\n")  # imported through pkg/layers.py
    after_helper = fingerprint.context(doc, roots, ENV, SALT)
    assert after_helper != before
    assert fingerprint.context(doc, roots, ENV, ("strict", None)) != after_helper
    assert fingerprint.context(doc, roots, fingerprint.Environment("other", "2.15.0"), SALT) != after_helper
    assert fingerprint.context(doc, roots, fingerprint.Environment(""), SALT) == ""  # unknown: never stored


def test_environment_follows_the_interpreters_packages(tmp_path: Path) -> None:
    """A venv whose torch is only a `*.dist-info` (nothing is imported): installing another version
    changes the fingerprint, and its version is read."""
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True, timeout=300
    )
    python = str(tmp_path / "venv" / "bin" / "python")
    site = next((tmp_path / "venv" / "lib").glob("python3*/site-packages"))
    (site / "torch-2.13.0.dist-info").mkdir()
    first = fingerprint.environment(python)
    assert first.digest and first.torch == "2.13.0"
    (site / "torch-2.13.0.dist-info").rename(site / "torch-2.15.0.dist-info")
    fingerprint.environment.cache_clear()
    second = fingerprint.environment(python)
    assert second.torch == "2.15.0" and second.digest != first.digest
    (site / "transformers-5.0.0.dist-info").mkdir()
    fingerprint.environment.cache_clear()
    assert fingerprint.environment(python).digest != second.digest
    assert fingerprint.environment(str(tmp_path / "no-such-python")).digest == ""
    # every spelling of the venv's interpreter is the one environment; the base interpreter is not
    spelled = [
        fingerprint.environment(str(tmp_path / "venv" / "bin" / name)) for name in ("python3", "python")
    ]
    assert {e.digest for e in spelled} == {fingerprint.environment(python).digest}
    assert spelled[0].prefix == str(tmp_path / "venv")
    base = fingerprint.environment(os.path.realpath(python))
    assert base.digest != spelled[0].digest and base.prefix != spelled[0].prefix


def test_environment_follows_what_the_worker_imports_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker gets the caller's PYTHONPATH, so the results do too: a folder put on it (which
    may hold a plain torch.py) and a distribution installed into it change the fingerprint; a
    sitecustomize that prints does not take the cache away."""
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True, timeout=300
    )
    python = str(tmp_path / "venv" / "bin" / "python")
    monkeypatch.delenv("PYTHONPATH", raising=False)
    bare = fingerprint.environment(python)
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "sitecustomize.py").write_text("print('hello from sitecustomize')\n")
    monkeypatch.setenv("PYTHONPATH", str(extra))
    fingerprint.environment.cache_clear()
    on_path = fingerprint.environment(python)
    assert on_path.digest and on_path.digest != bare.digest
    (extra / "torch-2.15.0.dist-info").mkdir()
    fingerprint.environment.cache_clear()
    installed = fingerprint.environment(python)
    assert installed.torch == "2.15.0" and installed.digest != on_path.digest
    fingerprint.environment.cache_clear()


def test_store_round_trip_is_exact(tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "cache")
    finding = Finding(
        path="/w/model.py",
        range=Range.of(3, 4, 3, 9),
        severity="error",
        code="data-dependent-branch",
        message="refused",
        module="Net",
        mode="non-strict",
        related=[Related("/w/export.py", Range.of(1, 0, 1, 5), "from here")],
        url="https://example.invalid/codes#data-dependent-branch",
        fix={"cond": "x.sum() > 0"},
    )
    result = ModuleResult(
        "Net", 3, "export-call", "non-strict", "failed", 1.25, None, {"ops": 3}, {"load": 0.1}
    )
    store.save("/w/model.py", "ctx", {"Net": Stored("key", [result], [finding])})
    (back,) = store.load("/w/model.py", "ctx").values()
    assert back == Stored("key", [result], [finding])
    assert store.load("/w/model.py", "other context") == {}
    assert store.load("/w/other.py", "ctx") == {}
    assert store.load("/w/model.py", "ctx", kind="cli") == {}  # the CLI's record is its own


def test_a_damaged_store_is_a_miss_not_an_error(tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "cache")
    store.save("/w/model.py", "ctx", {"Net": Stored("key", [], [])})
    (stored,) = (tmp_path / "cache").rglob("*.json")
    stored.write_text("{not json")
    assert store.load("/w/model.py", "ctx") == {}
    stored.write_text('{"path": "/w/model.py", "context": "ctx", "modules": {"Net": {"key": 1}}}')
    assert store.load("/w/model.py", "ctx") == {}


def test_code_digest_follows_exportlens_own_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The version string stays 0.1.0 across commits: results are keyed by the code itself, so an
    editable install or a newer build is never answered from what older code produced."""
    package = Path(fingerprint.__file__).resolve().parent.parent
    copy = tmp_path / "exportlens"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    first = fingerprint.code_digest(copy)
    assert first == fingerprint.code_digest(package)  # the same files, wherever they are installed
    (copy / "__pycache__").mkdir(exist_ok=True)
    (copy / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"compiled")
    fingerprint.code_digest.cache_clear()
    assert fingerprint.code_digest(copy) == first  # bytecode is no code change
    rule = copy / "diagnosis" / "classification.py"
    rule.write_text(rule.read_text() + "\n# a new rule\n")
    fingerprint.code_digest.cache_clear()
    assert fingerprint.code_digest(copy) != first
    fingerprint.code_digest.cache_clear()
    ours = fingerprint.read_environment("/usr/bin/python3", "[]").digest
    changed = fingerprint.code_digest(copy)
    monkeypatch.setattr(fingerprint, "code_digest", lambda: changed)
    assert fingerprint.read_environment("/usr/bin/python3", "[]").digest != ours  # the key holds the code
