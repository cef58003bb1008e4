"""`[tool.exportlens]` in pyproject.toml: read, validated on its line, and its precedence."""

from __future__ import annotations

from pathlib import Path

from exportlens.cli import file_settings, main
from exportlens.config.project import project_of
from exportlens.config.settings import BY_NAME, SPECS, Settings
from exportlens.lsp.client_settings import explicit, merge, user_set
from exportlens.lsp.session import Session

PROJECT = """[project]
name = "demo"

[tool.exportlens]
mode = "strict"
targets = ["export", "onnx"]
timeout = 12
memory-limit = 2048
device = "cpu"
all-failures = false
meta-above = 0
exclude = ["generated/**"]
ignore = ["exported-in-training-mode"]
severity = { side-effect-baked = "information", train-mode-dropout = "off" }
"""


def test_every_key_of_the_declaration_is_read(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        PROJECT.replace(', train-mode-dropout = "off"', "")
        + 'compile = "off"\nquantize = "xnnpack"\ndaemon = false\ndaemon-idle = 5\nunchecked-exit = 0\n'
        + "force-exclude = true\n"
    )
    project = project_of(str(tmp_path / "pkg" / "model.py"))
    assert project.errors == ()
    settings = project.settings(Settings())
    assert settings.mode == "strict" and settings.targets == ("export", "onnx")
    assert settings.timeout_seconds == 12.0 and settings.memory_limit_mb == 2048
    assert settings.device == "cpu" and settings.all_failures is False and settings.meta_above_mb == 0.0
    assert settings.exclude == ("generated/**",) and settings.ignore == ("exported-in-training-mode",)
    assert settings.severity == (("side-effect-baked", "information"),)
    assert settings.compile == "off" and settings.quantize == "xnnpack"
    assert settings.daemon is False and settings.daemon_idle_seconds == 5.0
    assert settings.unchecked_exit == 0 and settings.force_exclude is True
    assert settings.results_key() != Settings().results_key(), "the configuration is in the results key"
    assert {s.toml for s in SPECS if s.toml} == {
        "mode", "targets", "timeout", "memory-limit", "device", "all-failures", "meta-above", "exclude",
        "severity", "ignore", "compile", "quantize", "daemon", "daemon-idle", "unchecked-exit",
        "force-exclude",
    }  # fmt: skip


def test_a_bad_value_is_an_error_on_its_line(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PROJECT + "mode-typo = 1\n")
    project = project_of(str(tmp_path / "model.py"))
    by_key = {e.key: e for e in project.errors}
    assert set(by_key) == {"severity", "mode-typo"}
    assert by_key["severity"].line == 13 and "train-mode-dropout" in by_key["severity"].message
    assert by_key["mode-typo"].line == 14 and "unknown key" in by_key["mode-typo"].message
    assert "severity" not in project.values and project.values["mode"] == "strict", "the good values stay"


def test_the_cli_refuses_a_bad_value_with_file_line_key_and_what_is_allowed(
    tmp_path: Path, capsys: object, monkeypatch: object
) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.exportlens]\nmode = "fast"\n')
    (tmp_path / "model.py").write_text("x = 1\n")
    assert main(["check", str(tmp_path / "model.py")]) == 2
    err = capsys.readouterr().err  # type: ignore[attr-defined]
    assert f"{tmp_path / 'pyproject.toml'}:2: [tool.exportlens] mode: 'fast' is not allowed" in err
    assert BY_NAME["mode"].values in err


def test_invalid_toml_is_an_error_too(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.exportlens]\nmode = "strict\n')
    (error,) = project_of(str(tmp_path / "m.py")).errors
    assert error.line == 1 and "not valid TOML" in error.message


def test_precedence_flags_then_pyproject_then_defaults(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.exportlens]\nmode = "strict"\ntimeout = 5\n')
    file = str(tmp_path / "m.py")
    settings, _ = file_settings(file, {})
    assert (settings.mode, settings.timeout_seconds, settings.device) == ("strict", 5.0, "fake")
    settings, _ = file_settings(file, {"mode": "non-strict"})
    assert (settings.mode, settings.timeout_seconds) == ("non-strict", 5.0)


def test_the_nearest_pyproject_with_the_table_wins(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.exportlens]\nmode = "strict"\n')
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "pyproject.toml").write_text('[tool.exportlens]\nmode = "both"\n')
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "pyproject.toml").write_text('[project]\nname = "b"\n')  # no table: not its config
    assert project_of(str(tmp_path / "a" / "m.py")).values["mode"] == "both"
    assert project_of(str(tmp_path / "b" / "m.py")).values["mode"] == "strict"
    assert project_of(str(tmp_path / "m.py")).path == str(tmp_path / "pyproject.toml")


def test_editor_precedence_user_settings_then_pyproject_then_defaults(tmp_path: Path) -> None:
    """The VS Code client names the settings the user set (`explicit`, from inspect()); the
    others it sends are defaults, which the project's values beat."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.exportlens]\nmode = "strict"\ntimeout = 5\ndevice = "cpu"\n'
    )
    session = Session(lambda uri: None, lambda: [str(tmp_path)])
    raw = {"mode": "non-strict", "timeoutSeconds": 30, "device": "fake", "explicit": ["mode"]}
    session.settings, session.explicit = merge(Settings(), raw), explicit(raw) or frozenset()
    settings, _ = session.settings_for(str(tmp_path / "m.py"))
    assert (settings.mode, settings.timeout_seconds, settings.device) == ("non-strict", 5.0, "cpu")
    # A client that does not say which it set (Neovim): what it sends counts as set.
    assert explicit({"mode": "both"}) is None and user_set({"mode": "both", "other": 1}, frozenset()) == {
        "mode"
    }
    session.explicit = user_set({"mode": "both"}, frozenset())
    settings, _ = session.settings_for(str(tmp_path / "m.py"))
    assert (settings.mode, settings.timeout_seconds) == ("non-strict", 5.0)
    assert session.settings_for(str(tmp_path.parent / "elsewhere.py"))[0].timeout_seconds == 30.0
    # Set back to null (its default), the setting is the user's no longer: the project's counts.
    session.explicit = user_set({"mode": None}, session.explicit)
    assert session.settings_for(str(tmp_path / "m.py"))[0].mode == "strict"
