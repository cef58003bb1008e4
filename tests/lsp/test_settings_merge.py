"""Settings merge, pure: defaults < initializationOptions.settings < the workspace/configuration pull.

The server object is the real one (no process, no client): `read_init_options` is what
`initialize` calls, `pull_settings` what `initialized` and `didChangeConfiguration` call; only
the client's answer to `workspace/configuration` is given here.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from exportlens.config.settings import Settings
from exportlens.lsp.app import ExportLensServer
from exportlens.lsp.client_settings import merge, to_json


class Answering(ExportLensServer):
    """The real server, with a client that answers `workspace/configuration` with `pulled`."""

    def __init__(self, pulled: Any, configuration: bool = True) -> None:
        super().__init__()
        self.pulled = pulled
        self.asked: list[types.ConfigurationParams] = []
        workspace = types.WorkspaceClientCapabilities(configuration=configuration)
        self.protocol.client_capabilities = types.ClientCapabilities(workspace=workspace)

    async def workspace_configuration_async(self, params: types.ConfigurationParams) -> list[Any]:
        self.asked.append(params)
        if isinstance(self.pulled, Exception):
            raise self.pulled
        return [self.pulled]


def test_defaults_are_the_declared_ones() -> None:
    assert to_json(Settings()) == {
        "mode": None,
        "runOn": "type",
        "debounceMs": 300,
        "timeoutSeconds": 30.0,
        "memoryLimitMb": None,
        "python": None,
        "allFailures": True,
        "trusted": True,
        "exportSites": True,
        "metaAboveMb": 1024.0,
        "device": "fake",
        "targets": ["export"],
        "quantize": "none",
        "enable": True,
        "exclude": [],
        "ignore": [],
        "severity": {},
        "compile": "auto",
        "daemon": True,
        "daemonIdleSeconds": 600.0,
        "uncheckedExit": 3,
        "forceExclude": False,
    }


async def test_init_options_over_defaults_and_the_pull_over_both() -> None:
    ls = Answering({"debounceMs": 50, "mode": "strict"})
    ls.read_init_options({"settings": {"debounceMs": 10, "timeoutSeconds": 5, "runOn": "save"}})
    assert (ls.settings.debounce_ms, ls.settings.timeout_seconds, ls.settings.run_on) == (10, 5.0, "save")
    await ls.pull_settings()
    assert [item.section for item in ls.asked[0].items] == ["exportlens"]
    # the pull wins where it says something; what it does not mention stays as initialized
    assert ls.settings == Settings(debounce_ms=50, mode="strict", timeout_seconds=5.0, run_on="save")


async def test_a_bad_pulled_value_keeps_the_init_options_one() -> None:
    ls = Answering({"debounceMs": -1, "timeoutSeconds": "soon", "memoryLimitMb": 2048})
    ls.read_init_options({"settings": {"debounceMs": 10, "timeoutSeconds": 5}})
    await ls.pull_settings()
    assert ls.settings == Settings(debounce_ms=10, timeout_seconds=5.0, memory_limit_mb=2048)


async def test_a_later_pull_starts_from_the_current_settings_not_the_defaults() -> None:
    ls = Answering({"mode": "both"})
    await ls.pull_settings()
    ls.pulled = {"allFailures": False}
    await ls.pull_settings()
    assert ls.settings == Settings(mode="both", all_failures=False)
    ls.pulled = {"mode": ""}  # an emptied text box: back to "unset"
    await ls.pull_settings()
    assert ls.settings == Settings(mode=None, all_failures=False)


async def test_no_pull_without_the_capability_or_an_answer() -> None:
    ls = Answering({"debounceMs": 50}, configuration=False)
    ls.read_init_options({"settings": {"debounceMs": 10}})
    await ls.pull_settings()
    assert ls.asked == [] and ls.settings == Settings(debounce_ms=10)
    failing = Answering(RuntimeError("the client refused"))
    failing.read_init_options({"settings": {"debounceMs": 10}})
    await failing.pull_settings()  # logged; the settings we have are kept
    assert failing.settings == Settings(debounce_ms=10)
    nothing = Answering(None)  # a client without an `exportlens` section
    nothing.read_init_options({"settings": {"debounceMs": 10}})
    await nothing.pull_settings()
    assert nothing.settings == Settings(debounce_ms=10)


def test_init_options_trust_and_shapes() -> None:
    ls = ExportLensServer()
    ls.read_init_options({"trusted": False, "settings": {"exportSites": False}})
    assert not ls.trusted and ls.settings == Settings(export_sites=False)
    ls.read_init_options(None)  # a client without initializationOptions changes nothing
    ls.read_init_options({"settings": ["not", "a", "dict"]})
    assert ls.settings == Settings(export_sites=False)


def test_merge_ignores_unknown_names_and_wrong_types() -> None:
    base = Settings(debounce_ms=10)
    assert merge(base, {"debounce": 5, "exportlens.debounceMs": 5}) == base
    assert merge(base, {"debounceMs": True, "allFailures": 1, "python": 3, "runOn": "idle"}) == base
    assert merge(base, {"debounceMs": 2.5}) == base  # an integer setting takes integers only
    assert merge(base, {"python": "", "metaAboveMb": 0}) == Settings(debounce_ms=10, meta_above_mb=0.0)
    assert merge(base, "debounceMs=5") is base


async def test_a_memory_limit_of_0_means_none_as_the_client_says() -> None:
    ls = Answering({"memoryLimitMb": 0})
    ls.read_init_options({"settings": {"memoryLimitMb": 2048}})
    await ls.pull_settings()
    assert ls.settings.memory_limit_mb == 0


def test_a_misspelled_code_in_the_editors_ignore_is_logged_with_the_nearest(caplog: Any) -> None:
    caplog.set_level("WARNING", logger="exportlens.lsp")
    assert merge(Settings(), {"ignore": ["data-dependant-branch"]}) == Settings()
    assert "(did you mean 'data-dependent-branch'?)" in caplog.text, caplog.text
