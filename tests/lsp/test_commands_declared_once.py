"""The server's commands and protocol.ts's `ServerCommand` descriptors name the same commands,
and each answers what the client's result type says (lsp/command_results.py).

A command is declared once on each side (docs/architecture.md, "An LSP feature"): a command the
server registers that the client cannot call typed, or a descriptor of a command no server has,
is named here.
"""

from __future__ import annotations

import re
import typing
from typing import Any

from exportlens.lsp.server import build
from tests.lsp.test_settings_declared_once import ts_block
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


def command_results() -> dict[str, str]:
    """Command -> the result type protocol.ts gives it: an interface name or an inline `{...}`."""
    protocol = (ROOT / "extension/src/protocol.ts").read_text(encoding="utf-8")
    found = re.findall(r"new CommandType<\s*\[[^\]]*\],\s*(.+?)>\('([\w.]+)'\)", protocol, flags=re.S)
    return {name: result.strip() for result, name in found}


def interface_fields(block: str) -> dict[str, str]:
    """`name: type` per line of an interface (comments dropped; `name?:` too), each type whole."""
    block = re.sub(r"/\*.*?\*/|//[^\n]*", "", block, flags=re.S)
    lines = (re.match(r"\s*(\w+)\??\s*:\s*(.*?);?\s*$", line) for line in block.splitlines())
    return {m[1]: m[2] for m in lines if m}


SCALARS = {bool: "boolean", str: "string", int: "number", float: "number"}


def ts_type(hint: Any) -> str | None:
    """The TypeScript a scalar or nullable scalar hint is written as; None: not compared here."""
    args = typing.get_args(hint)
    if type(None) in args:
        (inner,) = [a for a in args if a is not type(None)]
        shown = ts_type(inner)
        return f"{shown} | null" if shown else None
    return SCALARS.get(hint)


def test_every_command_result_is_typed_alike_on_both_sides() -> None:
    """Each command's return TypedDict (lsp/command_results.py) and its protocol.ts type: the
    same fields, and the same type for each scalar one."""
    protocol = (ROOT / "extension/src/protocol.ts").read_text(encoding="utf-8")
    declared = command_results()
    for name, handler in build().protocol.fm.commands.items():
        hint = typing.get_type_hints(getattr(handler, "func", handler))["return"]
        assert typing.is_typeddict(hint), f"{name}: returns {hint}, not a command_results TypedDict"
        result = declared[name]
        if result.startswith("{"):  # inline, `{ cancelled: boolean }`: a field per `;`
            block = result[1:-1].replace(";", ";\n")
        else:  # an interface: a field per line (a nested `{ ...; ... }` stays one)
            block = ts_block(protocol, f"export interface {result} {{")
        fields = interface_fields(block)
        server = typing.get_type_hints(hint)
        assert set(fields) == set(server), (
            f"{name} ({result}): client {sorted(fields)} server {sorted(server)}"
        )
        for field, python in server.items():
            expected = ts_type(python)
            if expected is not None:
                assert fields[field] == expected, (
                    f"{name}.{field}: client {fields[field]!r}, server {expected!r}"
                )
