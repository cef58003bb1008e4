"""A misspelled code or setting says which one was meant (issue 42, item 6): `--ignore`, a
`# exportlens: ignore[...]` comment, `ignore`/`severity` and the keys of `[tool.exportlens]`, each
with difflib's nearest known name. Through the real CLI."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_cli import run_cli

PLAIN = "import torch\n\nSCALE = 2  # exportlens: ignore[dim-specialised]\n"


def test_a_misspelled_code_option_is_a_usage_error_naming_the_code(tmp_path: Path) -> None:
    (tmp_path / "plain.py").write_text(PLAIN, encoding="utf-8")
    done = run_cli("plain.py", "--ignore", "data-dependant-branch", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "unknown code 'data-dependant-branch' (did you mean 'data-dependent-branch'?)" in done.stderr


def test_a_misspelled_code_in_a_comment(tmp_path: Path) -> None:
    (tmp_path / "plain.py").write_text(PLAIN, encoding="utf-8")
    done = run_cli("plain.py", "--no-cache", cwd=tmp_path)
    (note,) = [
        line
        for line in done.stdout.splitlines()
        if "[unknown-ignore-code]: " in line and not line.startswith("docs[")
    ]
    assert "`dim-specialised` (did you mean 'dim-specialized'?) is not an ExportLens code" in note, note


def test_misspelled_keys_and_codes_of_the_project_table(tmp_path: Path) -> None:
    (tmp_path / "plain.py").write_text(PLAIN, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        "[tool.exportlens]\n"
        "timeoutSeconds = 5\n"  # the editor's name for `timeout`
        "meta-abuve = 10\n"
        'ignore = ["exported-in-train-mode"]\n'
        '[tool.exportlens.severity]\n"dim-specialised" = "off"\n',
        encoding="utf-8",
    )
    done = run_cli("plain.py", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    said = done.stderr
    assert "timeoutSeconds: unknown key (did you mean 'timeout'?)" in said, said
    assert "meta-abuve: unknown key (did you mean 'meta-above'?)" in said, said
    assert "'exported-in-train-mode' (did you mean 'exported-in-training-mode'?)" in said, said
    assert "'dim-specialised' (did you mean 'dim-specialized'?)" in said, said
