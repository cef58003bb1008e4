"""`exportlens.quantize` from where it is set to the worker's job: the CLI's `--quantize`, TOML's
`quantize`, the job message the worker decodes, and the results' cache key (docs/targets.md)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from exportlens.check.jobs import make_job
from exportlens.cli import DEFAULT, build_parser, check_options, explicit_settings, file_settings
from exportlens.discovery import discovery_of
from exportlens.reading import read_document
from exportlens.worker.wire import protocol

SOURCE = """import torch


class Net(torch.nn.Module):
    def forward(self, x):
        return x + 1


torch.export.export(Net(), (torch.ones(2),))
"""


def _wire(path: Path, quantize: str) -> protocol.JobMessage:
    doc = read_document(str(path))
    (subject,) = discovery_of(doc).subjects
    settings = dataclasses.replace(DEFAULT, targets=("export", "executorch"), quantize=quantize)  # type: ignore[arg-type]
    return make_job(doc, subject, None, check_options(settings)).to_wire(1)


def test_the_cli_flag_and_toml_set_it_and_the_job_carries_it(tmp_path: Path) -> None:
    (tmp_path / "net.py").write_text(SOURCE)
    args = build_parser().parse_args(["check", "net.py", "--quantize", "xnnpack"])
    assert explicit_settings(args)["quantize"] == "xnnpack"
    assert "quantize" not in explicit_settings(build_parser().parse_args(["check", "net.py"]))
    (tmp_path / "pyproject.toml").write_text('[tool.exportlens]\nquantize = "xnnpack"\n')
    assert file_settings(str(tmp_path / "net.py"), {})[0].quantize == "xnnpack"
    assert file_settings(str(tmp_path / "net.py"), {"quantize": "none"})[0].quantize == "none"  # the CLI wins
    wire = _wire(tmp_path / "net.py", "xnnpack")
    assert wire["targets"] == ["executorch"] and wire["quantize"] == "xnnpack"
    assert protocol.decode_to_worker(protocol.encode({"op": "job", "job": wire})) == {
        "op": "job",
        "job": wire,
    }
    assert "quantize" not in _wire(tmp_path / "net.py", "none")  # the float program: as before


def test_a_quantized_result_is_never_a_float_ones_in_the_cache() -> None:
    quantized = dataclasses.replace(DEFAULT, quantize="xnnpack")
    assert quantized.results_key() != DEFAULT.results_key()
    assert dataclasses.replace(quantized, quantize="none").results_key() == DEFAULT.results_key()
