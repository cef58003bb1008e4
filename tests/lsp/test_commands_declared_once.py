"""The server's commands and protocol.ts's `ServerCommand` descriptors name the same commands.

A command is declared once on each side (docs/architecture.md, "An LSP feature"): a command the
server registers that the client cannot call typed, or a descriptor of a command no server has,
is named here.
"""

from __future__ import annotations

import re

from exportlens.lsp.server import build
from tests.paths import ROOT


def client_commands() -> set[str]:
    protocol = (ROOT / "extension/src/protocol.ts").read_text(encoding="utf-8")
    block = protocol[protocol.index("export const ServerCommand = {") :]
    block = block[: block.index("} as const;")]
    return set(re.findall(r"new CommandType<[^;]*?>\('([\w.]+)'\)", block, flags=re.S))


def test_every_server_command_has_its_descriptor() -> None:
    registered = set(build().protocol.fm.commands)
    declared = client_commands()
    assert registered - declared == set(), "protocol.ts ServerCommand lacks these"
    assert declared - registered == set(), "protocol.ts declares commands no server registers"
