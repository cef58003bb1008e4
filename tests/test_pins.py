"""The tested environment is the shipped one: the dev extra pins the server's dependencies (the
`server` extra) at the versions the .vsix bundles, and every dev requirement is an exact pin."""

from __future__ import annotations

import re
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^([A-Za-z0-9_.-]+)==([^\s;#]+)$")


def pins(lines: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in lines:
        match = PIN.match(line.split("#", 1)[0].strip())
        if match:
            found[match.group(1).lower()] = match.group(2)
    return found


def test_every_dev_requirement_is_an_exact_pin() -> None:
    dev = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["dev"]
    assert [r for r in dev if not PIN.match(r)] == []


def test_dev_pins_the_bundled_server_dependencies() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    dev = pins(project["optional-dependencies"]["dev"])
    bundled = pins((ROOT / "extension" / "bundled-requirements.txt").read_text().splitlines())
    server = project["optional-dependencies"]["server"]  # what `exportlens serve` needs
    # The CLI needs only tomli on Python 3.10 (no tomllib): the server's are an extra.
    assert server and project["dependencies"] == ['tomli==2.2.1; python_version < "3.11"']
    assert bundled["tomli"] == "2.2.1", "the .vsix's server reads pyproject.toml on 3.10 too"
    for requirement in server:
        name = re.split(r"[<>=!~ ]", requirement, maxsplit=1)[0].lower()
        assert name in bundled and dev.get(name) == bundled[name], (name, dev.get(name), bundled.get(name))


def test_the_older_transformers_is_pinned_exactly_and_differs_from_the_main_one() -> None:
    """`make test-transformers-older`'s release (tools/transformers-venv.sh installs only these)."""
    lines = (ROOT / "tools" / "transformers-older.txt").read_text().splitlines()
    wanted = [line for line in lines if line.strip() and not line.startswith("#")]
    assert wanted and all(PIN.match(line) for line in wanted), wanted
    dev = pins(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["dev"]
    )
    assert pins(wanted)["transformers"] != dev["transformers"]
