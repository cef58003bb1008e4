"""`pip install exportlens` as a user gets it: the wheel built from this tree, in a fresh venv.

The venv has nothing but the wheel (installed without its extras and without an index, as the
pre-commit hook's environment has): the CLI must run on it alone, exports in another interpreter
with torch (`--python`, this suite's). Its findings' links lead into the installed package, its
SARIF rules carry each code's documentation, and `serve` without the `server` extra says what to
install. Offline: the wheel is built with the dev venv's pinned setuptools, nothing is downloaded.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname

import pytest

from exportlens.codes.sections import RELATIVE_MD, linked_docs
from tests.paths import ROOT

# What a source distribution holds (MANIFEST.in, pyproject.toml): built from a copy, the tree stays clean.
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "LICENSE", "server", "docs")


def run(
    *argv: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tmp_path_factory.mktemp("source")
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(
                ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
            )
        else:
            shutil.copy(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("wheel")
    built = run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "--no-index",
        "-w",
        out,
        source,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (found,) = out.glob("exportlens-*.whl")
    return found


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    venv = tmp_path_factory.mktemp("fresh") / "venv"
    made = run(sys.executable, "-m", "venv", "--without-pip", venv)
    assert made.returncode == 0, made.stderr
    installed = run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        venv / "bin" / "python",
        "install",
        "--no-deps",
        "--no-index",
        wheel,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return venv


def user_env(tmp: Path) -> dict[str, str]:
    """A user's shell: no PYTHONPATH to this checkout, an empty results store."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, "EXPORTLENS_CACHE_DIR": str(tmp / "cache")}


def package_of(venv: Path) -> Path:
    found = run(venv / "bin" / "python", "-c", "import exportlens; print(exportlens.__file__)", cwd=venv)
    assert found.returncode == 0, found.stderr
    return Path(found.stdout.strip()).parent


def test_the_wheel_holds_the_package_its_docs_and_a_user_readme(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    docs = sorted(n for n in names if n.startswith("exportlens/docs/"))
    # codes.md and every document its links lead to (sections.py declares which; setup.py ships them)
    linked = linked_docs(ROOT / "docs" / "codes.md")
    assert docs == sorted(f"exportlens/docs/{d.name}" for d in linked)
    assert {"exportlens/docs/codes.md", "exportlens/docs/configuration.md"} <= set(docs)
    assert "exportlens/worker/wire/boot.py" in names and "exportlens/lsp/server.py" in names
    assert not [n for n in names if n.startswith(("tests/", "bench/", "examples/")) or "__pycache__" in n]
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    # The CLI itself depends on nothing but tomli on Python 3.10 (no tomllib there).
    own = [line for line in requires if "extra ==" not in line]
    assert requires and own == ['Requires-Dist: tomli==2.2.1; python_version < "3.11"'], own
    assert 'extra == "server"' in next(line for line in requires if "pygls" in line)
    body = metadata.split("\n\n", 1)[1]
    assert body.startswith("# ExportLens") and "pip install exportlens" in body and "make test" not in body


def test_the_installed_cli_checks_with_another_interpreter_and_links_into_itself(
    venv: Path, tmp_path: Path
) -> None:
    package = package_of(venv)
    assert package.is_relative_to(venv), f"{package}: the installed copy, not this checkout"
    assert run(venv / "bin" / "python", "-c", "import pygls", cwd=venv).returncode != 0, "no server extra"
    for name in ("guarded.py", "dynamic_dims.py"):
        shutil.copy(ROOT / "examples" / name, tmp_path / name)
    env = user_env(tmp_path)
    checked = run(
        venv / "bin" / "exportlens",
        "check",
        "--format",
        "json",
        "--python",
        sys.executable,
        "guarded.py",
        "dynamic_dims.py",
        cwd=tmp_path,
        env=env,
    )
    assert checked.returncode == 1, checked.stderr
    findings = [d for f in json.loads(checked.stdout)["files"] for d in f["diagnostics"]]
    codes = {d["code"] for d in findings}
    assert {"data-dependent-branch", "dim-specialized"} <= codes, codes
    docs = package / "docs" / "codes.md"
    headings = set(re.findall(r"^## (\S+)$", docs.read_text(), re.M))
    for finding in findings:
        url = urlparse(finding["url"])
        if url.scheme == "file":  # ExportLens's own documentation: inside the installed package
            assert Path(url2pathname(url.path)) == docs and url.fragment in headings, finding["url"]
        else:
            assert url.scheme == "https" and url.netloc == "pytorch.org", finding["url"]
    assert any(urlparse(d["url"]).scheme == "file" for d in findings), "dim-specialized links to codes.md"
    text = run(
        venv / "bin" / "exportlens", "check", "--python", sys.executable, "guarded.py", cwd=tmp_path, env=env
    )
    assert text.returncode == 1 and "guarded.py:8:12: error[data-dependent-branch]" in text.stdout, (
        text.stdout
    )


def test_the_installed_docs_link_only_to_each_other(venv: Path) -> None:
    docs = package_of(venv) / "docs"
    for doc in docs.glob("*.md"):
        for target in RELATIVE_MD.findall(doc.read_text()):
            assert (docs / target).is_file(), f"{doc.name} links to {target}, not installed"


def test_sarif_rules_carry_each_codes_documentation(venv: Path, tmp_path: Path) -> None:
    shutil.copy(ROOT / "examples" / "dynamic_dims.py", tmp_path / "dynamic_dims.py")
    out = run(
        venv / "bin" / "exportlens",
        "check",
        "--format",
        "sarif",
        "--python",
        sys.executable,
        "dynamic_dims.py",
        cwd=tmp_path,
        env=user_env(tmp_path),
    )
    assert out.returncode == 1, out.stderr
    rules = json.loads(out.stdout)["runs"][0]["tool"]["driver"]["rules"]
    sections = (package_of(venv) / "docs" / "codes.md").read_text()
    assert rules
    for rule in rules:
        help_markdown = rule["help"]["markdown"]
        assert f"## {rule['id']}\n{help_markdown}" in sections, rule["id"]
        assert "**Fix:**" in help_markdown and rule["help"]["text"] and rule["fullDescription"]["text"]


def test_serve_without_the_server_extra_says_what_to_install(venv: Path, tmp_path: Path) -> None:
    out = run(venv / "bin" / "exportlens", "serve", cwd=tmp_path, env=user_env(tmp_path))
    assert out.returncode == 2
    assert "pip install 'exportlens[server]'" in out.stderr and "Traceback" not in out.stderr, out.stderr
