"""Every place that shows or reads a setting agrees with its one declaration (`config/settings.py`).

Compared, not generated: package.json's `contributes.configuration`, the extension's README
table, the LSP README table, `extension/src/settings.ts` / `protocol.ts`, the CLI's flags.
A failure says what the declaration expects, so the fix is a copy of the expected text.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import pytest

from exportlens.cli import build_parser, explicit_settings
from exportlens.config.settings import CLIENT_ONLY, LEVELS, SPECS, Settings, Spec
from exportlens.lsp.client_settings import merge
from exportlens.spelling import code_argument
from tests.paths import ROOT

CLIENT_SPECS = [s for s in SPECS if s.client is not None]


def client_name(spec: Spec) -> str:
    assert spec.client is not None
    return spec.client.name or spec.name


def client_default(spec: Spec) -> Any:
    assert spec.client is not None
    return spec.default if spec.client.default is ... else spec.client.default


def client_enum(spec: Spec) -> tuple[str, ...]:
    assert spec.client is not None
    return spec.client.enum if spec.client.enum is not None else spec.enum


def as_json(value: Any) -> str:
    """A default as the docs write it: 30, not 30.0; a table (`severity`) as `{}`."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return json.dumps(value)


def table(path: Path, header: str) -> dict[str, list[str]]:
    """The markdown table under `header` (its first line): first cell -> the other cells."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = lines.index(header) + 2
    rows: dict[str, list[str]] = {}
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        rows[cells[0].strip("`")] = cells[1:]
    return rows


def vscode_properties() -> dict[str, dict[str, Any]]:
    package = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
    props: dict[str, dict[str, Any]] = package["contributes"]["configuration"]["properties"]
    return {name.removeprefix("exportlens."): prop for name, prop in props.items()}


def test_the_declaration_is_whole() -> None:
    assert [s.field for s in SPECS] == [f for f in Settings.__dataclass_fields__]
    assert len({s.name for s in SPECS}) == len(SPECS)
    for spec in SPECS:
        assert spec.type in ("string", "integer", "number", "boolean", "array", "object"), spec.name
        assert spec.accepts(spec.default), f"{spec.name}: its default {spec.default!r} is not allowed"
        assert spec.values, spec.name
    assert Settings().results_key() == tuple(getattr(Settings(), s.field) for s in SPECS if s.results)


def expected_property(spec: Spec) -> dict[str, Any]:
    """The declaration's part of a package.json entry (minimum, scope, enumDescriptions are
    the entry's own)."""
    assert spec.client is not None
    default = client_default(spec)
    entry: dict[str, Any] = {"type": spec.type if default is not None else [spec.type, "null"]}
    if spec.type == "array":  # a list of the enum's names, or of any strings (codes, globs)
        entry["items"] = (
            {"type": "string", "enum": list(client_enum(spec))} if client_enum(spec) else {"type": "string"}
        )
    elif spec.type == "object":  # code -> level
        entry["additionalProperties"] = {"type": "string", "enum": list(LEVELS)}
    elif client_enum(spec):
        entry["enum"] = list(client_enum(spec))
    entry["default"] = default
    entry["markdownDescription"] = spec.client.description
    return entry


def test_package_json() -> None:
    props = vscode_properties()
    for spec in CLIENT_SPECS:
        want = expected_property(spec)
        prop = props.get(client_name(spec))
        assert prop is not None, f'package.json lacks "exportlens.{client_name(spec)}": {json.dumps(want)}'
        got = {key: prop.get(key) for key in want}
        got["markdownDescription"] = prop.get("markdownDescription", prop.get("description"))
        got["enum"] = prop.get("enum", [])
        assert got == {"enum": [], **want}, f"exportlens.{client_name(spec)}"
        if "enumDescriptions" in prop:
            assert len(prop["enumDescriptions"]) == len(prop["enum"]), spec.name
    declared = {client_name(s) for s in CLIENT_SPECS} | set(CLIENT_ONLY)
    assert set(props) <= declared, "in package.json, not declared in config/settings.py"


def test_extension_readme() -> None:
    rows = table(ROOT / "extension/README.md", "| setting | default | |")
    props = vscode_properties()
    for spec in CLIENT_SPECS:
        assert spec.client is not None
        want = [f"`{as_json(client_default(spec))}`", spec.client.description]
        assert rows.get(f"exportlens.{client_name(spec)}") == want, (
            f"want | `exportlens.{client_name(spec)}` | {' | '.join(want)} |"
        )
    for name in CLIENT_ONLY:
        assert rows[f"exportlens.{name}"][0] == f"`{as_json(props[name]['default'])}`", name
    assert list(rows) == [f"exportlens.{name}" for name in props], "same settings, package.json's order"


def test_lsp_readme() -> None:
    readme = ROOT / "server/exportlens/lsp/README.md"
    rows = table(readme, "| name | values | default |")
    for spec in SPECS:
        want = [spec.values, f"`{'{}' if spec.type == 'object' else as_json(spec.default)}`"]
        assert rows.get(spec.name) == want, f"want | `{spec.name}` | {' | '.join(want)} |"
    assert list(rows) == [s.name for s in SPECS], "same settings, the declaration's order"
    text = " ".join(readme.read_text(encoding="utf-8").split())
    (sentence,) = re.findall(r"Changing a setting export results depend on \(([^)]*)\)", text)
    assert sentence == ", ".join(f"`{s.name}`" for s in SPECS if s.results)


def ts_block(source: str, opening: str) -> str:
    """The text inside the first brace at or after `opening`, up to its closing brace."""
    start = source.index("{", source.index(opening)) + 1
    depth, i = 1, start
    while depth:
        depth += {"{": 1, "}": -1}.get(source[i], 0)
        i += 1
    return source[start : i - 1]


def ts_fields(block: str) -> dict[str, str]:
    """`name: text` entries of an interface or object literal (comments dropped)."""
    block = re.sub(r"/\*.*?\*/|//[^\n]*", "", block, flags=re.S)
    return {m[1]: m[2].strip() for m in re.finditer(r"^\s*(\w+)\s*:\s*([^;\n]*?)[;,]?\s*$", block, re.M)}


def ts_union(source: str, type_text: str) -> tuple[str, ...]:
    """The string literals of a union type, through one `export type X = ...;` alias."""
    alias = re.search(rf"export type {re.escape(type_text)} = ([^;]*);", source)
    return tuple(re.findall(r"'([^']*)'", alias[1] if alias else type_text))


def test_client_settings_ts() -> None:
    source = (ROOT / "extension/src/settings.ts").read_text(encoding="utf-8")
    interface = ts_fields(ts_block(source, "export interface ClientSettings {"))
    declared = {client_name(s) for s in CLIENT_SPECS}
    assert set(interface) == declared, (
        f"ClientSettings: lacks {declared - set(interface)}, extra {set(interface) - declared}"
    )
    defaults = ts_fields(ts_block(source, "export const DEFAULTS: ClientSettings = {"))
    assert set(defaults) == set(interface)
    for spec in CLIENT_SPECS:
        name = client_name(spec)
        assert json.loads(defaults[name].replace("'", '"')) == client_default(spec), f"DEFAULTS.{name}"
        if client_enum(spec):
            union = interface[name].removesuffix("[]")  # an array setting: a list of the union
            assert ts_union(source, union) == client_enum(spec), f"ClientSettings.{name}"
    modes = re.search(r"export const MODES: readonly Mode\[\] = \[([^\]]*)\]", source)
    assert modes and tuple(re.findall(r"'([^']*)'", modes[1])) == client_enum(
        next(s for s in SPECS if s.name == "mode")
    )


def test_what_the_client_sends() -> None:
    """protocol.ts ServerSettings and toServerSettings: names the server knows, every VS Code
    setting among them (under the server's name)."""
    protocol = (ROOT / "extension/src/protocol.ts").read_text(encoding="utf-8")
    sent = ts_fields(ts_block(protocol, "export interface ServerSettings {"))
    assert set(sent) <= {s.name for s in SPECS} | {"explicit"}  # explicit: which the user set
    missing = {s.name for s in CLIENT_SPECS} - set(sent)
    assert not missing, f"protocol.ts ServerSettings lacks {missing}"
    source = (ROOT / "extension/src/settings.ts").read_text(encoding="utf-8")
    body = ts_block(source, "export function toServerSettings(")
    assert set(ts_fields(ts_block(body, "return {"))) == set(sent) - {"explicit"}, (
        "toServerSettings returns ServerSettings (client.ts adds `explicit`)"
    )


def check_options() -> dict[str, argparse.Action]:
    (commands,) = (a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return {flag: action for action in commands.choices["check"]._actions for flag in action.option_strings}


def test_cli_flags() -> None:
    options = check_options()
    usage = (ROOT / "README.md").read_text(encoding="utf-8")
    for spec in (s for s in SPECS if s.cli):
        assert spec.cli is not None
        assert f"[{spec.cli}" in usage, f"README's `exportlens check` usage lacks {spec.cli}"
        action = options[spec.cli]
        if isinstance(action, argparse._StoreTrueAction):  # a flag that sets the opposite of the default
            assert spec.type == "boolean", spec.name
            args = build_parser().parse_args(["check", "model.py", spec.cli])
            assert explicit_settings(args)[spec.field] is (not spec.default), spec.cli
            continue
        if spec.type == "array":  # repeatable: each flag adds one name to the default
            assert action.nargs is None and isinstance(action, argparse._AppendAction), spec.cli
        # unset by default: the file's pyproject.toml, else the declaration's default (config/project.py)
        assert action.default is None, spec.cli
        # a list of codes takes each as a code (a misspelled one is refused, naming the nearest)
        array = code_argument if spec.items == "code" else None
        assert action.type is {"number": float, "integer": int, "string": None, "array": array}[spec.type], (
            spec.cli
        )
        assert tuple(action.choices or ()) == spec.enum, spec.cli


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_merge_takes_what_the_spec_accepts(spec: Spec) -> None:
    """Each spec's own validation is what merge applies: a wrong type never lands."""
    wrong = {"string": 3, "integer": "3", "number": "3", "boolean": "yes", "array": "onnx", "object": []}[
        spec.type
    ]
    assert merge(Settings(), {spec.name: wrong}) == Settings()
    assert getattr(merge(Settings(), {spec.name: spec.default}), spec.field) == spec.default


def test_targets_merge_as_a_list_of_known_names() -> None:
    assert merge(Settings(), {"targets": ["onnx", "core-aten", "onnx"]}).targets == ("onnx", "core-aten")
    assert merge(Settings(), {"targets": ["tflite"]}) == Settings(), "an unknown target is refused whole"
    assert merge(Settings(), {"targets": []}).targets == ()
