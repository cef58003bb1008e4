"""The wheel ships the documentation its findings link to (pyproject.toml holds everything else).

A finding's link opens its code's section of docs/codes.md, which links on to devices.md,
targets.md, ...: those files are copied into the package as `exportlens/docs/` (where
exportlens/codes/sections.py looks first), so an installed package's links resolve offline.
"""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
DOCS = HERE / "docs"


class BuildWithDocs(build_py):
    def run(self) -> None:
        super().run()
        sys.path.insert(0, str(HERE / "server"))
        from exportlens.codes.sections import linked_docs

        target = Path(self.build_lib) / "exportlens" / "docs"
        for doc in linked_docs(DOCS / "codes.md"):
            relative = doc.relative_to(DOCS)  # a link out of docs/ would not resolve once installed
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            self.copy_file(str(doc), str(target / relative))


setup(cmdclass={"build_py": BuildWithDocs})
