"""The trust default of a client that is not VS Code (issue 42, item 6): the real server, sent no
`trusted` at all, is trusted (it runs the workspace's code), and both READMEs say so where such a
client is set up, with the switch that turns it off."""

from __future__ import annotations

import re

from exportlens.config.settings import Settings
from tests.paths import ROOT

from .conftest import Session


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    following = re.search(r"^## ", text[start + len(heading) :], re.M)
    return text[start : start + len(heading) + following.start()] if following else text[start:]


async def test_a_client_that_says_nothing_is_trusted_and_the_docs_say_so(server: Session) -> None:
    status = await server.command("exportlens.status")
    assert status["trusted"] is True and Settings().trusted is True, status
    assert "trusted" not in status["settings"] or status["settings"]["trusted"] is True
    trust = " ".join(_section((ROOT / "server/exportlens/lsp/README.md").read_text(), "## Trust").split())
    assert "is trusted by default" in trust and "init_options = { trusted = false }" in trust, trust
    neovim = _section((ROOT / "README.md").read_text(), "## Other editors: Neovim")
    assert "trusted by default" in neovim and "trusted = false" in neovim, neovim
