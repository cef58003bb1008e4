"""The .vsix's manifest (extension/vsix_stage.py): ready for the Marketplace and Open VSX, with
the public address taken from its one place, pyproject.toml's [project.urls], once there is one."""

from __future__ import annotations

import importlib.util
import json
from types import ModuleType

import tomllib

from tests.paths import ROOT

PLACEHOLDERS = ("TODO", "OWNER", "example", "placeholder", "your-")


def stage() -> ModuleType:
    spec = importlib.util.spec_from_file_location("vsix_stage", ROOT / "extension" / "vsix_stage.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def manifest(pyproject: str) -> dict:  # type: ignore[type-arg]
    vsix = stage()
    package = json.loads((ROOT / "package.json").read_text())
    return vsix.vsix_manifest(package, vsix.public_urls(pyproject))  # type: ignore[no-any-return]


def test_the_manifest_is_ready_but_for_the_public_address() -> None:
    staged = manifest((ROOT / "pyproject.toml").read_text())
    assert "private" not in staged, "npm's guard for the development tree, not the extension's"
    assert staged["preview"] is True
    assert staged["publisher"] and staged["name"] == "exportlens"
    assert set(staged["categories"]) <= {"Linters", "Machine Learning", "Programming Languages", "Other"}
    assert 0 < len(staged["keywords"]) <= 30
    assert staged["galleryBanner"]["theme"] in ("dark", "light")
    assert (ROOT / "CHANGELOG.md").read_text().startswith("# Changelog")
    assert f"## {staged['version']}" in (ROOT / "CHANGELOG.md").read_text()
    text = json.dumps({k: v for k, v in staged.items() if k != "contributes"})
    assert not [p for p in PLACEHOLDERS if p in text]
    # no public address yet: no made-up one
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"] == {}
    assert not {"repository", "homepage", "bugs"} & set(staged)


def test_the_public_address_fills_the_manifest_from_pyproject() -> None:
    pyproject = (
        (ROOT / "pyproject.toml")
        .read_text()
        .replace(
            "[project.urls]\n",
            '[project.urls]\nHomepage = "https://git.example/ml/exportlens"\n'
            'Repository = "https://git.example/ml/exportlens.git"  # the clone address\n'
            'Issues = "https://git.example/ml/exportlens/issues"\n',
        )
    )
    assert stage().public_urls(pyproject) == tomllib.loads(pyproject)["project"]["urls"]
    staged = manifest(pyproject)
    assert staged["homepage"] == "https://git.example/ml/exportlens"
    assert staged["repository"] == {"type": "git", "url": "https://git.example/ml/exportlens.git"}
    assert staged["bugs"] == {"url": "https://git.example/ml/exportlens/issues"}
