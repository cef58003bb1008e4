"""The pins a torch version's venv needs beside torch for the suites it runs: the requirement closure
of the libraries the tests' model files import (transformers), at the versions this interpreter
(the main venv, set up from pyproject.toml) has, less what the venv already holds.

    python tools/worker_extras.py [--missing-in VENV_PYTHON]

Prints `name==version` lines: all of them, or those VENV_PYTHON does not have yet. The main
venv's versions are the project's own pins (pyproject.toml pins transformers; its dependencies are
what that pin resolved to), so no second list of pins exists.
What the venv already has (torch's own dependencies) is left as torch's install chose it.
"""

from __future__ import annotations

import argparse
import importlib.metadata as metadata
import json
import subprocess

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

# The libraries that model files in the diagnosis and fix suites import in the worker.
ROOTS = ("transformers",)


def closure(roots: tuple[str, ...]) -> dict[str, str]:
    """Each distribution the roots need (markers evaluated here), with its installed version."""
    found: dict[str, str] = {}
    todo = list(roots)
    while todo:
        name = canonicalize_name(todo.pop())
        if name in found:
            continue
        dist = metadata.distribution(name)
        found[name] = dist.version
        for line in dist.requires or []:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return found


def installed_in(python: str) -> set[str]:
    listing = subprocess.run(
        [python, "-m", "pip", "list", "--format=json", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        check=True,
    )
    return {canonicalize_name(entry["name"]) for entry in json.loads(listing.stdout)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--missing-in", metavar="VENV_PYTHON")
    args = parser.parse_args()
    have = installed_in(args.missing_in) if args.missing_in else set()
    for name, version in sorted(closure(ROOTS).items()):
        if name not in have:
            print(f"{name}=={version}")


if __name__ == "__main__":
    main()
