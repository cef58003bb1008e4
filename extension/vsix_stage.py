"""What extension/package-vsix.sh stages beside the built files.

`manifest`: package.json as the Marketplace and Open VSX get it.

package.json is also the development tree's npm manifest: its `private: true` keeps it from
being published to npm by mistake, and is dropped here. The public address is written in one
place, pyproject.toml's `[project.urls]` (the Python package's too): its Homepage, Repository and
Issues become the manifest's homepage, repository and bugs. There is none yet; until there is,
the manifest has no such fields and extension/package-vsix.sh packs without rewriting the README's
relative links (which vsce would point at that repository).

`docs`: the documents a finding's link can reach (docs/codes.md and what it links to), one path
a line, which the .vsix carries (exportlens/codes/sections.py finds them beside the server).

    python3 extension/vsix_stage.py manifest package.json pyproject.toml > stage/package.json
    PYTHONPATH=server python3 extension/vsix_stage.py docs
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

URLS_TABLE = re.compile(r"^\[project\.urls\]\s*$(.*?)(?=^\[|\Z)", re.M | re.S)
URL_ENTRY = re.compile(r'^\s*"?([A-Za-z][\w .-]*?)"?\s*=\s*"([^"]*)"\s*(?:#.*)?$', re.M)


def public_urls(pyproject: str) -> dict[str, str]:
    """pyproject.toml's `[project.urls]` (plain `Key = "value"` lines: tomllib is 3.11+ only)."""
    table = URLS_TABLE.search(pyproject)
    if table is None:
        return {}
    body = "\n".join(line for line in table.group(1).splitlines() if not line.lstrip().startswith("#"))
    return {key.strip(): value for key, value in URL_ENTRY.findall(body)}


def vsix_manifest(manifest: dict[str, Any], urls: dict[str, str]) -> dict[str, Any]:
    out = {key: value for key, value in manifest.items() if key != "private"}
    if "Homepage" in urls:
        out["homepage"] = urls["Homepage"]
    if "Repository" in urls:
        out["repository"] = {"type": "git", "url": urls["Repository"]}
    if "Issues" in urls:
        out["bugs"] = {"url": urls["Issues"]}
    return out


def manifest(package_json: str, pyproject_toml: str) -> None:
    with open(package_json, encoding="utf-8") as package, open(pyproject_toml, encoding="utf-8") as project:
        staged = vsix_manifest(json.load(package), public_urls(project.read()))
    sys.stdout.write(json.dumps(staged, indent=2, ensure_ascii=False) + "\n")


def docs() -> None:
    from exportlens.codes.sections import linked_docs  # PYTHONPATH=server

    for doc in linked_docs(Path("docs/codes.md")):
        print(doc.relative_to(Path.cwd()))


if __name__ == "__main__":
    if sys.argv[1:2] == ["manifest"]:
        manifest(*sys.argv[2:4])
    elif sys.argv[1:2] == ["docs"]:
        docs()
    else:
        sys.exit(f"usage: {sys.argv[0]} manifest PACKAGE_JSON PYPROJECT_TOML | docs")
