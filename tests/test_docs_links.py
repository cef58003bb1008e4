"""A code's documentation link (codeDescription, SARIF helpUri) is a docs/codes.md that is there.

The project has no public address: where no copy of docs/codes.md ships (a wheel built without
it), codes documented there get no link at all, never a made-up URL. Each layout is the
package copied as it is installed, imported in a fresh interpreter.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "server" / "exportlens"

LINKS = """
import json
from lsprotocol import types
from exportlens.codes import CODES, DOCS, url_for
from exportlens.findings import Finding, Range
from exportlens.lsp.diagnostics import to_diagnostic

documented = next(c for c, e in CODES.items() if e.url is None)  # links to docs/codes.md only
own = next(c for c, e in CODES.items() if e.url)  # links to its own page (torch's docs)
finding = Finding("/m.py", Range.of(0, 0, 0, 1), CODES[documented].severity, documented, "m",
                  url=url_for(documented))
link = to_diagnostic(finding, {}).code_description
print(json.dumps({"docs": DOCS, "documented": url_for(documented), "own": url_for(own),
                  "href": link.href if link else None}))
"""


def links(site: Path) -> dict[str, str | None]:
    """What the package installed at `site` links to (run elsewhere, so nothing else is found)."""
    env = {**os.environ, "PYTHONPATH": str(site)}
    out = subprocess.run(
        [sys.executable, "-c", LINKS], env=env, cwd=site, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def install(site: Path) -> Path:
    shutil.copytree(PACKAGE, site / "exportlens", ignore=shutil.ignore_patterns("__pycache__"))
    return site / "exportlens"


def test_a_wheel_without_the_docs_links_to_nothing_made_up(tmp_path: Path) -> None:
    site = tmp_path / "lib" / "python3" / "site-packages"
    install(site)
    found = links(site)
    assert found["docs"] is None and found["documented"] is None
    assert found["href"] is None  # no codeDescription at all
    assert found["own"] and found["own"].startswith("https://pytorch.org/")


def test_a_wheel_with_the_docs_as_package_data_links_to_them(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    docs = install(site) / "docs" / "codes.md"
    docs.parent.mkdir()
    shutil.copy(ROOT / "docs" / "codes.md", docs)
    found = links(site)
    assert found["docs"] == docs.resolve().as_uri() + "#"
    assert found["href"] == found["documented"]


def test_the_vsix_links_to_the_docs_it_ships(tmp_path: Path) -> None:
    """The .vsix: server/exportlens/ and docs/codes.md under the extension's folder."""
    extension = tmp_path / "extension"
    install(extension / "server")
    docs = extension / "docs" / "codes.md"
    docs.parent.mkdir()
    shutil.copy(ROOT / "docs" / "codes.md", docs)
    found = links(extension / "server")
    assert found["docs"] == docs.resolve().as_uri() + "#"
    assert found["href"] == found["documented"]


def test_the_checkout_links_to_its_docs() -> None:
    found = links(ROOT / "server")
    assert found["docs"] == (ROOT / "docs" / "codes.md").as_uri() + "#"
